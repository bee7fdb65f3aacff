// Runs an ONNX model on the CPU with onnxruntime-node and prints its
// outputs as JSON, for the export package's tests:
//
//   node run.js MODEL.onnx INPUT.f32 N D1 D2 [D3 ...]
//
// INPUT.f32 holds N*D1*D2*... little-endian float32 values, the model's
// input "x" of shape N x D1 x D2 x ... (N x C x H x W for a colour model). Prints {"outputs": {name: {"dims": [...],
// "type": "...", "data": [...]}}, "inputs": [...], "fastest_ms": ...}
// (fastest_ms with ONNXCHECK_TIMES=k: the fastest of k more runs).
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

async function main() {
  const [model, input, ...rest] = process.argv.slice(2);
  if (rest.length < 3) {
    throw new Error('usage: node run.js MODEL.onnx INPUT.f32 N D1 D2 [D3 ...]');
  }
  const dims = rest.map(Number);
  const buf = fs.readFileSync(input);
  if (buf.length !== 4 * dims.reduce((a, b) => a * b, 1)) {
    throw new Error(`${input}: ${buf.length} bytes for ${dims.join(' x ')} float32 values`);
  }
  const x = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  const session = await ort.InferenceSession.create(model, { executionProviders: ['cpu'] });
  const feeds = { x: new ort.Tensor('float32', x, dims) };
  const result = await session.run(feeds);
  // ONNXCHECK_TIMES=k: run k more times and report the fastest, in ms.
  let fastest;
  for (let i = 0; i < Number(process.env.ONNXCHECK_TIMES || 0); i++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    fastest = fastest === undefined ? ms : Math.min(fastest, ms);
  }
  const outputs = {};
  for (const name of session.outputNames) {
    const t = result[name];
    outputs[name] = { dims: t.dims, type: t.type, data: Array.from(t.data, Number) };
  }
  process.stdout.write(JSON.stringify({ inputs: session.inputNames, outputs, fastest_ms: fastest }) + '\n');
}

main().catch((e) => {
  process.stderr.write(`onnxcheck: ${e.message || e}\n`);
  process.exit(1);
});
