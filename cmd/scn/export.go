package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/export"
	"github.com/spf13/cobra"
)

func newExport() *cobra.Command {
	var (
		format, out string
		expand      bool
	)
	cmd := &cobra.Command{
		Use:   "export MODEL --format onnx|npz [-o FILE]",
		Short: "Write a model as an ONNX graph or as NumPy arrays",
		Long: fmt.Sprintf(`Write a saved model in a format other tools run:

  --format onnx   an ONNX graph (opset %d): input x, float32 N x rows x cols
                  (pixels in [0,1] after the preprocessing the model records);
                  outputs y (float64 N x outputs) and, for classifiers, class
                  (int64 N). 2D models keep the u^T X v structure; with
                  --expand the graph forms the weights vec(u v^T) from the
                  stored u and v at load (same file size; onnxruntime runs
                  it faster and with less memory).
  --format npz    NumPy arrays (numpy.load, allow_pickle=False): u and v (2D)
                  or W (1D), b, beta, shape, kind, activation, classes,
                  preprocessing.

The format defaults to the extension of -o; -o defaults to MODEL with the
format's extension. The file is written atomically. The README shows the
graph and a numpy example that reproduces the predictions.`, export.Opset),
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError{fmt.Errorf("export takes one model, got %d arguments", len(args))}
			}
			format = strings.ToLower(format)
			if format == "" {
				format = strings.TrimPrefix(strings.ToLower(filepath.Ext(out)), ".")
				if format != "onnx" && format != "npz" {
					return usageError{fmt.Errorf("give --format onnx or npz (or an -o file ending in .onnx or .npz)")}
				}
			}
			if format != "onnx" && format != "npz" {
				return usageError{fmt.Errorf("--format %q: want onnx or npz", format)}
			}
			if expand && format != "onnx" {
				return usageError{fmt.Errorf("--expand applies to --format onnx only")}
			}
			if out == "" {
				out = strings.TrimSuffix(args[0], filepath.Ext(args[0])) + "." + format
			}
			if same(out, args[0]) {
				return usageError{fmt.Errorf("-o %s would overwrite the model itself", out)}
			}
			m, err := scn.Load(args[0])
			if err != nil {
				return err
			}
			if format == "onnx" {
				err = export.WriteONNX(out, m, export.ONNXOptions{Expand: expand})
			} else {
				err = export.WriteNPZ(out, m)
			}
			if err != nil {
				return err
			}
			st, err := os.Stat(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%s, %d bytes): %s, %s input, %d outputs, %d nodes\n",
				out, format, st.Size(), m.Kind.Title(), inputShape(m.Rows, m.Cols, m.Chans()), m.M, m.Nodes())
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "onnx or npz (default: from the -o extension)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "output file (default: MODEL with the format's extension)")
	cmd.Flags().BoolVar(&expand, "expand", false, "ONNX of a 2D model: form the d1 x d2 weights from u and v in the graph (folded at load) and apply them with one MatMul, instead of u^T X v")
	return cmd
}

// same reports whether two paths name the same file (or the same path,
// when neither exists yet).
func same(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
