package serve

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/scn2d/scn"
)

// arrived records that a request is no longer arriving and wakes a pass
// that waits for company.
func (md *model) arrived() {
	md.arriving.Add(-1)
	select {
	case md.changed <- struct{}{}:
	default:
	}
}

// job is one request's images waiting for a scoring pass.
type job struct {
	pix  []float32
	n    int
	out  []float64
	err  error
	done chan struct{}
}

// score predicts n prepared images, gathering them with other requests'
// into one scoring pass when all passes are busy: the request waits for a
// pass slot, and whoever gets one scores the requests waiting then (up to
// Options.Gather images), its own among them unless another pass took it.
func (s *Server) score(ctx context.Context, md *model, pix []float32, n int) ([]float64, error) {
	j := &job{pix: pix, n: n, done: make(chan struct{})}
	md.mu.Lock()
	md.pending = append(md.pending, j)
	md.mu.Unlock()
	md.arrived()
	for {
		select {
		case <-j.done:
			return j.out, j.err
		case s.sem <- struct{}{}:
			k := s.runPending(md)
			<-s.sem
			if k == 0 { // another pass took j: wait for it, without spinning
				<-j.done
				return j.out, j.err
			}
		case <-ctx.Done():
			if md.remove(j) {
				return nil, errorf(499, "request cancelled before it was scored: %v", ctx.Err())
			}
			<-j.done
			return j.out, j.err
		}
	}
}

// remove takes j off the pending list, if it is still there.
func (md *model) remove(j *job) bool {
	md.mu.Lock()
	defer md.mu.Unlock()
	for i, p := range md.pending {
		if p == j {
			md.pending = append(md.pending[:i], md.pending[i+1:]...)
			return true
		}
	}
	return false
}

// runPending scores the jobs waiting at the head of md's list, up to
// Options.Gather images (at least one job), in one pass, and returns the
// number of jobs it scored. While fewer images wait and other requests for
// the model are being decoded, it first waits for them, at most
// Options.GatherWait.
func (s *Server) runPending(md *model) int {
	// Under load, wait a little for the requests being decoded: one pass
	// of many images costs less than many passes of few. The wait sleeps
	// until a request joins the list or stops arriving (md.changed), not
	// in a polling loop: passes are frequent, and each poll costs a timer
	// and a wake-up.
	if s.opts.GatherWait > 0 && md.arriving.Load() > 0 {
		timer := time.NewTimer(s.opts.GatherWait)
		defer timer.Stop()
	wait:
		for md.arriving.Load() > 0 {
			md.mu.Lock()
			images := 0
			for _, j := range md.pending {
				images += j.n
			}
			md.mu.Unlock()
			if images >= s.opts.Gather {
				break
			}
			select {
			case <-md.changed:
			case <-timer.C:
				break wait
			}
		}
	}
	md.mu.Lock()
	k, images := 0, 0
	for k < len(md.pending) && (k == 0 || images+md.pending[k].n <= s.opts.Gather) {
		images += md.pending[k].n
		k++
	}
	jobs := append([]*job(nil), md.pending[:k]...)
	clear(md.pending[:k])
	md.pending = md.pending[k:]
	md.mu.Unlock()
	if k == 0 {
		return 0
	}
	s.metrics.batch.Observe(float64(images))
	pix := jobs[0].pix
	if k > 1 {
		pix = make([]float32, 0, images*md.m.Dim())
		for _, j := range jobs {
			pix = append(pix, j.pix...)
		}
	}
	y, err := md.safePredict(pix)
	off := 0
	for _, j := range jobs {
		if err != nil {
			j.err = err
		} else {
			j.out = y[off*md.m.M : (off+j.n)*md.m.M : (off+j.n)*md.m.M]
		}
		off += j.n
		close(j.done)
	}
	return k
}

// safePredict runs the model, turning a panic into an error.
func (md *model) safePredict(pix []float32) (y []float64, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("serve: model %s panicked: %v", md.name, p)
		}
	}()
	y, err = md.pred.Predict(scn.Images{Rows: md.m.Rows, Cols: md.m.Cols, Channels: md.m.Channels, Pix: pix})
	if err != nil {
		return nil, errorf(http.StatusUnprocessableEntity, "%v", err)
	}
	return y, nil
}
