package scnbeam

import (
	"fmt"
	"slices"
)

// Fold is the accumulator of the combine: the sum of shards 0 .. Next-1
// of one key (when Has), and the parts of later shards that arrived before
// their predecessors. Parts are added strictly in shard order (Add), so
// the sum's bytes do not depend on the order in which a runner delivers
// parts or merges accumulators, nor on how it cuts them into bundles:
// whatever the number of workers, the result is the left fold
// ((p0 + p1) + p2) + ... of the shards' parts, the arithmetic of a chain
// of scn.Stats.Merge in shard order.
type Fold struct {
	Next    int
	Has     bool
	Sum     Part
	Pending []Part
}

// Push adds p to the fold: at once if it is the next shard (then also
// the pending parts that now follow), else into Pending.
func (f *Fold) Push(p Part) error {
	i, found := slices.BinarySearchFunc(f.Pending, p.Shard, func(q Part, s int) int { return q.Shard - s })
	if found || p.Shard < f.Next {
		return fmt.Errorf("%w: %s: shard %d summed twice", ErrParts, p.Key, p.Shard)
	}
	f.Pending = slices.Insert(f.Pending, i, p)
	return f.drain()
}

// drain adds the pending parts that continue the prefix 0 .. Next-1.
func (f *Fold) drain() error {
	k := 0
	for ; k < len(f.Pending) && f.Pending[k].Shard == f.Next; k++ {
		if !f.Has {
			f.Sum, f.Has = f.Pending[k], true
		} else {
			s, err := Add(f.Sum, f.Pending[k])
			if err != nil {
				return err
			}
			f.Sum = s
		}
		f.Pending[k] = Part{}
		f.Next++
	}
	f.Pending = slices.Delete(f.Pending, 0, k)
	return nil
}

// Merge adds the shards of o to f (only one of them may hold shard 0).
func (f *Fold) Merge(o *Fold) error {
	if o.Has {
		if f.Has {
			return fmt.Errorf("%w: %s: shard 0 summed twice", ErrParts, f.Sum.Key)
		}
		f.Next, f.Has, f.Sum, o.Next = o.Next, true, o.Sum, 0
		for _, p := range f.Pending {
			if p.Shard < f.Next {
				return fmt.Errorf("%w: %s: shard %d summed twice", ErrParts, p.Key, p.Shard)
			}
		}
	}
	for _, p := range o.Pending {
		if err := f.Push(p); err != nil {
			return err
		}
	}
	return f.drain()
}

// Result returns the sum of every shard, or an error when a shard is
// missing (parts pending after a gap) or none was added.
func (f *Fold) Result() (Part, error) {
	if len(f.Pending) > 0 {
		return Part{}, fmt.Errorf("%w: %s: shard %d missing (shard %d is there)", ErrParts, f.Pending[0].Key, f.Next, f.Pending[0].Shard)
	}
	if !f.Has {
		return Part{}, fmt.Errorf("%w: no shard summed", ErrParts)
	}
	return f.Sum, nil
}

// foldFn is the CombineFn of the parts of one key.
type foldFn struct{}

func (foldFn) CreateAccumulator() Fold { return Fold{} }

func (foldFn) AddInput(a Fold, p Part) (Fold, error) {
	err := a.Push(p)
	return a, err
}

func (foldFn) MergeAccumulators(a, b Fold) (Fold, error) {
	err := a.Merge(&b)
	return a, err
}

func (foldFn) ExtractOutput(a Fold) (Part, error) { return a.Result() }
