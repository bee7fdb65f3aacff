package scn

import "github.com/scn2d/scn/internal/node"

// The activations' arithmetic is internal/node's Activation (numbered as
// Activation's constants).

// applyRow overwrites z with g(z + b) (node.Activation.Apply).
func (a Activation) applyRow(z []float32, b float32) { node.Activation(a).Apply(z, b) }

// eval returns g(t), as applyRow computes it.
func (a Activation) eval(t float32) float32 { return node.Activation(a).Eval(t) }

// slope returns g'(t) written in terms of the output h = g(t), as the
// generalization indicator needs (node.Activation.Slope).
func (a Activation) slope(h float64) float64 { return node.Activation(a).Slope(h) }
