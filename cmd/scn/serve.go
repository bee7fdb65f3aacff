package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/scn2d/scn/serve"
	"github.com/spf13/cobra"
)

func newServe() *cobra.Command {
	var (
		addr  string
		opts  serve.Options
		quiet bool
		lf    learnFlags
	)
	cmd := &cobra.Command{
		Use:   "serve MODEL [MODEL...]",
		Short: "Serve models over HTTP: predictions, model list, metrics, a page to draw on",
		Long: `Serve saved models over HTTP. A model is named by its file name without the
extension, or NAME=PATH. Endpoints:

  POST /v1/models/NAME:predict   an image file (PNG, JPEG, GIF, BMP, PGM/PPM),
                                 prepared as the model records (as scn predict
                                 does), or a JSON batch {"images": [...]};
                                 a calibrated model (scn train with model
                                 selection, the default, or --calibrate)
                                 adds "probability" beside each "score" and
                                 answers "unsure" under --reject-below, a
                                 model with intervals (--coverage) "lower"
                                 and "upper"
  GET  /v1/models                the loaded models (kind, shapes, classes,
                                 nodes, SHA-256 of the file)
  GET  /healthz, GET /metrics    health check, Prometheus metrics
  GET  /                         a page to draw a digit or drop an image on

With --learn (and --token-file), a model also learns online from its
statistics (MODEL.scnstats, from scn train --stats-out):

  POST /v1/models/NAME:learn     labelled images: an image file with
                                 ?label=CLASS (or ?target=V), or a JSON batch
                                 {"images": [...], "labels": [...]}; needs
                                 Authorization: Bearer TOKEN
  GET  /v1/models/NAME/versions  the snapshots (MODEL.versions/vNNNNNN)
  POST /v1/models/NAME:rollback?version=V   serve version V again (token)

The server listens on loopback unless --addr says otherwise. SIGTERM or Ctrl-C
stops it after the requests in flight; SIGHUP reloads the model files (a file
that no longer reads leaves its model as it was, and the log says why).`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			level := slog.LevelInfo
			if quiet {
				level = slog.LevelWarn
			}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			opts.Logger = log
			if err := checkServeOptions(opts); err != nil {
				return err
			}
			if !(opts.RejectBelow >= 0 && opts.RejectBelow <= 1) {
				return usageError{fmt.Errorf("--reject-below %v: want a probability in [0, 1]", opts.RejectBelow)}
			}
			if opts.GatherWait == 0 {
				opts.GatherWait = -1 // --gather-wait 0: never wait
			}
			type spec struct{ name, path string }
			var specs []spec
			seen := map[string]string{}
			for _, a := range args {
				name, path, err := serve.ParseModelArg(a)
				if err != nil {
					return usageError{err}
				}
				if p, ok := seen[name]; ok {
					return usageError{fmt.Errorf("two models named %q (%s and %s): give NAME=PATH", name, p, path)}
				}
				seen[name] = path
				specs = append(specs, spec{name, path})
			}
			s := serve.New(opts)
			if err := lf.enable(s); err != nil {
				return err
			}
			defer lf.restoreProcs()
			for _, sp := range specs {
				if err := lf.load(s, sp.name, sp.path); err != nil {
					return err
				}
			}
			tuneGC(s)
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			if host, _, err := net.SplitHostPort(addr); err == nil {
				if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
					log.Warn("listening beyond loopback: anyone who can reach this address can use the models", "addr", ln.Addr().String())
				}
			}
			hup := make(chan os.Signal, 1)
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			go func() {
				for range hup {
					log.Info("SIGHUP: reloading the model files")
					if err := s.Reload(); err != nil {
						log.Warn("reload incomplete", "err", err)
					}
					tuneGC(s)
				}
			}()
			log.Info("serving", "url", "http://"+ln.Addr().String()+"/", "models", len(args))
			err = s.Serve(cmd.Context(), ln)
			if cerr := s.CloseLearning(); err == nil {
				err = cerr
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	int64Var(f, &opts.MaxBodyBytes, "max-body", 4<<20, 1, 1<<32, "request body limit in bytes")
	intVar(f, &opts.MaxPixels, "max-pixels", 1<<22, 1, 1<<30, "pixel limit of an image, checked on its header before decoding")
	intVar(f, &opts.MaxBatchImages, "max-batch", 4096, 1, 1<<20, "images limit of one JSON batch")
	intVar(f, &opts.MaxConcurrent, "concurrency", 0, 0, 4096, "scoring passes (and image decodings) at once (0: one per CPU)")
	intVar(f, &opts.Gather, "gather", 64, 1, 4096, "most images one scoring pass gathers from waiting requests (1: none)")
	durationVar(f, &opts.GatherWait, "gather-wait", time.Millisecond, 0, time.Second, "how long a scoring pass may wait for requests being decoded when fewer than --gather images wait (0: never)")
	intVar(f, &opts.TopK, "top", 5, 1, 1<<20, "scores per image when a request does not say (?top=N)")
	durationVar(f, &opts.ReadTimeout, "read-timeout", 0, 0, 24*time.Hour, "time to read a request (0: 30s)")
	durationVar(f, &opts.WriteTimeout, "write-timeout", 0, 0, 24*time.Hour, "time to answer a request (0: 30s)")
	durationVar(f, &opts.IdleTimeout, "idle-timeout", 0, 0, 24*time.Hour, "time a kept-alive connection may idle (0: 2m)")
	durationVar(f, &opts.ShutdownTimeout, "shutdown-timeout", 0, 0, 24*time.Hour, "time to finish the requests in flight on SIGTERM (0: 30s)")
	f.BoolVarP(&quiet, "quiet", "q", false, "log warnings and errors only")
	lf.add(cmd)
	floatVar(f, &opts.RejectBelow, "reject-below", 0, 0, 1, true, "calibrated models: answer \"unsure\" when the top class probability is below this (a request's ?reject_below=P overrides it)")
	return cmd
}

// tuneGC keeps the garbage collector's slack about gcHeadroom beyond the
// models (setGCSlack, with the model files' size: the parameters in memory
// take about what the file takes), and returns the memory that loading
// freed (a model file's bytes are read whole, then decoded) to the
// operating system, so that a server starts serving with what it uses.
func tuneGC(s *serve.Server) {
	setGCSlack(s.ModelBytes())
	debug.FreeOSMemory()
}

// checkServeOptions refuses negative limits (zero means the default).
func checkServeOptions(o serve.Options) error {
	for _, c := range []struct {
		name string
		v    int64
	}{
		{"--max-body", o.MaxBodyBytes}, {"--max-pixels", int64(o.MaxPixels)}, {"--max-batch", int64(o.MaxBatchImages)},
		{"--concurrency", int64(o.MaxConcurrent)}, {"--gather", int64(o.Gather)}, {"--top", int64(o.TopK)},
		{"--read-timeout", int64(o.ReadTimeout)}, {"--write-timeout", int64(o.WriteTimeout)},
		{"--idle-timeout", int64(o.IdleTimeout)}, {"--shutdown-timeout", int64(o.ShutdownTimeout)},
		{"--gather-wait", int64(o.GatherWait)},
	} {
		if c.v < 0 {
			return usageError{fmt.Errorf("%s must not be negative", c.name)}
		}
	}
	return nil
}
