package export

import (
	"encoding/json"

	"github.com/scn2d/scn"
	pb "github.com/scn2d/scn/internal/onnxpb"
	"google.golang.org/protobuf/proto"
)

// entry is one metadata_props entry.
func entry(key, value string) *pb.StringStringEntryProto {
	return &pb.StringStringEntryProto{Key: proto.String(key), Value: proto.String(value)}
}

// model wraps the graph g of m in the model every export writes: the graph
// (named by m's kind, documented by doc), its input and outputs, and the
// metadata props followed by the class names and the preprocessing (in
// that order, which the files keep).
func (g *graph) model(m *scn.Model, doc string, input *pb.ValueInfoProto, outputs []*pb.ValueInfoProto, props []*pb.StringStringEntryProto) *pb.ModelProto {
	gp := &pb.GraphProto{
		Name:        proto.String(m.Kind.Title()),
		Node:        g.nodes,
		Initializer: g.inits,
		Input:       []*pb.ValueInfoProto{input},
		Output:      outputs,
		DocString:   proto.String(doc + "."),
	}
	classes, _ := json.Marshal(m.Classes)
	props = append(props, entry("classes", string(classes)), entry(MetaPreprocess, preprocessing(m)))
	return &pb.ModelProto{
		IrVersion:       proto.Int64(irVersion),
		OpsetImport:     []*pb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(Opset)}},
		ProducerName:    proto.String("scn"),
		ProducerVersion: proto.String("1"),
		DocString:       proto.String(doc + "."),
		Graph:           gp,
		MetadataProps:   props,
	}
}
