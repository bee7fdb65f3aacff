// Package streamfit owns what package scn's streamed fits (Config.FitStream,
// Config.StreamFits, Config.StreamPasses) decide and sum over plain data:
// which configurations stream and how many reads of the data they take
// (Spec: Fits, Passes), the shape every shard of a stream must share and
// its check (Shape.Check), and the first pass of a streamed fit (Scan: the
// counts, T_q^T T_q, the mean image and the first images; ScanLocal: the
// local fits' planes' moments), and a streamed local fit's passes after
// the first (FitLocal: the whitening's pass, then internal/localnet's
// Fit.Stream). A global fit's passes after the first are internal/drive's.
//
// It takes shards as float32 image rows with their shape and float64
// targets (Shard, Shards), never the root package's Source, Problem,
// Config or Model; errors about the data are cfgerr.DataError values (the
// root wraps them in scn.ErrData), about the configuration they wrap
// cfgerr.ErrConfig. It may import the standard library, internal/cfgerr,
// internal/drive, internal/local and internal/localnet only; never the root package scn or
// any package above it.
//
// # Out-of-core fits
//
// A random learner with a ridge (the one-pass block fit of
// drive_onepass.go) needs its training images only to form G = H^T H and
// H^T T, in one pass over row shards. FitStream runs that fit on a Source
// that reads the images shard by shard from disk, so that the images are
// never all in memory: peak memory is G (L x L float64), one row shard's
// outputs of every node (L x 2048) and the first momentSample images (the
// sample standardisation measures spreads on), whatever N.
//
// A streamed fit of a random learner reads the source twice. The first
// pass checks every shard (image shape, outputs and classes the same in
// all; a shard that differs stops the fit with its name before anything
// is fitted), counts the images, sums the mean image (Standardize) and
// T_q^T T_q in image order, and keeps the first momentSample images. Then
// every node is drawn as Fit draws them, and the second pass cuts the
// shards, whatever their sizes, into the row shards of lsq.ShardRows images a
// fit in memory uses and forms every block's sums from them in the same
// order. So the model is the same bytes as Fit's on the same images, with
// one exception: difference nodes (Config.Differences: the fast and
// default presets) draw their pairs of images from the first momentSample
// images only (a fit in memory draws them from all N), so the two agree
// bit for bit when N <= momentSample and draw other nodes otherwise.
// Regression targets' T_q^T T_q are summed shard by shard (a fit in memory
// sums them in one dot product): the training RMSE may differ in the last
// bits; one-hot targets sum exactly.
//
// The supervised learners (SCN, 2DSCN) in blocks with a ridge are
// streamed too (drive_stream_supervised.go): after the same first pass,
// one pass per block step forms the residual shard by shard from the
// nodes so far, scores the step's candidates against it and forms their
// Gram sums, and one last pass measures the last block's residual:
// ceil(L / BlockSize) + 2 reads of the data (StreamPasses; standardised
// pair candidates take a pass more per block to measure their spreads,
// and a step that finds nothing admissible at a scale one more per scale
// it tries). The model is the block fit's in memory, byte for byte, with
// the exceptions above (and to rounding with OpenBLAS's products, whose
// bits depend on their shape: see drive_stream_supervised.go). FitStream refuses fits without a ridge (a
// dependent column would need the outputs again), supervised fits with
// bfloat16 Gram products and robust output weights (one pass per
// reweighting). Model selection with a hold-out streams through
// SelectStream (stream_select.go), in two more passes.
//
// # Streamed local fits
//
// Streamed fits of local random learners (Config.Local with RVFL or
// 2DRVFL; issue 31 item 3): FitStream reads the images shard by shard and
// never holds them all, nor the pooled outputs of every image.
//
//   - Pass 1 checks every shard as a global streamed fit does (shape,
//     outputs, classes), counts the images, sums T_q^T T_q and the planes'
//     moments (each plane's sums over the pixels, image by image in order:
//     the bits planeMoments forms in memory).
//   - With Local.Whiten, a pass gathers each filter size's sample of
//     patches (internal/localnet's StreamWhitening, the fit in memory's
//     sample planned from the count of images alone, each patch read when
//     its image comes by): the whitening is the fit in memory's.
//   - Every filter is then drawn as the fit in memory draws them (the
//     same random numbers in the same order, the planes' standardisation
//     folded in).
//   - Pass 2 (Local.Standardize only) applies the filters,
//     localnet.RandomBlock at a time as in memory, to each row shard of
//     lsq.ShardRows images and sums each pooled output over the images in
//     order: its mean is the fit in memory's, bit for bit; its deviation
//     comes from sums shifted by the output on the first image (Sum (h -
//     h_1) and Sum (h - h_1)^2, where the fit in memory sums (h - mean)^2
//     over the column it holds): the same to rounding, so that a scale
//     may differ from the fit in memory's in its last bit.
//   - Pass 3 forms the Gram sums of the standardised outputs over the same
//     row shards with the engine's one-pass accumulation (the products the
//     fit in memory forms block by block, reduced in the same shard order),
//     grows the factor block by block and solves the output weights.
//
// The model is the fit in memory's: the same filters, means and trace;
// the output weights the same to rounding (TestLocalStream bounds the
// difference at 1e-9 relative; bit for bit when no scale differs); the
// training RMSE from the sums (tr(T^T T) - 2 tr(beta^T H^T T) + tr(beta^T
// G beta), where the fit in memory forms the residual). Memory: G and its
// factor (L x L float64), one row shard's pooled outputs (L x ShardRows
// float32, with the engine's pass buffers) and the images of one row
// shard (and the whitening's samples): it does not grow with N.
// Supervised local fits (their candidates are judged on the residual of
// every image) and augmented ones are not streamed.
package streamfit
