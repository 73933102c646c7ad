import CSentioKernels

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory kernels own, freed with its owner: a model's packed weights and padded biases
/// (shared, read-only once prepared) or an interpreter's scratch (one slice per worker).
final class KernelMemory: @unchecked Sendable {
    // Unchecked: blocks are added only while a model is prepared or an interpreter is bound,
    // on one thread; after that the list is only read.
    private(set) var blocks: [UnsafeMutablePointer<Float>] = []
    /// Bytes allocated so far.
    private(set) var bytes = 0

    func allocate(_ count: Int, zeroed: Bool = true) -> UnsafeMutablePointer<Float> {
        let p = Interpreter.allocate(max(16, count))
        if zeroed { p.initialize(repeating: 0, count: max(16, count)) }
        blocks.append(p)
        bytes += max(16, count) * 4
        return p
    }

    deinit { for p in blocks { free(p) } }
}

/// A kernel's run over one interpreter's memory.
typealias KernelRun = (ThreadPool) -> Void

/// The convolution as a packed matrix product (CSentioKernels' 6×16 micro-kernel).
enum FastConv2D {
    /// Binds packed weights to one interpreter: its input and output memory, the most threads
    /// a run uses, and where its per-worker scratch comes from.
    typealias Binder = (_ x: UnsafeMutablePointer<Float>, _ out: UnsafeMutablePointer<Float>, _ threads: Int, _ scratch: KernelMemory) -> KernelRun

    /// Packs `filter` (a constant) once into `weights`, memory shared by every interpreter of
    /// the model; nil when the fast kernel does not apply.
    static func prepare(input: [Int], filter: FloatTensor, bias: FloatTensor?, output: [Int], window: Window,
                        activation: Activation, weights memory: KernelMemory) -> Binder? {
        guard activation != .tanh else { return nil }
        let x = FloatTensor(shape: input, data: filter.data), out = FloatTensor(shape: output, data: filter.data)
        let (n, h, w, c) = x.nhwc
        let (co, kh, kw, _) = filter.nhwc
        let (_, oh, ow, _) = out.nhwc
        let kdim = kh * kw * c
        let packed = memory.allocate(sentio_packed_size(Int32(co), Int32(kdim)), zeroed: false)
        sentio_pack(filter.data, Int32(co), Int32(kdim), packed)
        let panels = (co + Int(SENTIO_NR) - 1) / Int(SENTIO_NR)
        let paddedBias = memory.allocate(panels * Int(SENTIO_NR))
        if let bias { paddedBias.update(from: bias.data, count: co) }
        let padT = window.vertical(input: h, filter: kh).1
        let padL = window.horizontal(input: w, filter: kw).1
        let (lo, hi) = activation.bounds
        let pointwise = kh == 1 && kw == 1 && window.strideH == 1 && window.strideW == 1 && padT == 0 && padL == 0
        var conv = sentio_conv(
            input: nil, output: nil, packed: packed, weights: filter.data, bias: paddedBias,
            batch: Int32(n), in_h: Int32(h), in_w: Int32(w), in_c: Int32(c),
            out_h: Int32(oh), out_w: Int32(ow), out_c: Int32(co),
            k_h: Int32(kh), k_w: Int32(kw), stride_h: Int32(window.strideH), stride_w: Int32(window.strideW),
            dil_h: Int32(window.dilationH), dil_w: Int32(window.dilationW), pad_t: Int32(padT), pad_l: Int32(padL),
            act_min: lo, act_max: hi, pointwise: pointwise ? 1 : 0, direct: nil)
        // Few input channels (the RGB layer): the direct kernel, which works by output rows.
        var blocks = (n * oh * ow + Int(SENTIO_CONV_BLOCK) - 1) / Int(SENTIO_CONV_BLOCK)
        if c <= 4, !pointwise, sentio_have_avx2() != 0 {
            let direct = memory.allocate(sentio_direct_size(Int32(co), Int32(kh), Int32(kw), Int32(c)), zeroed: false)
            sentio_pack_direct(filter.data, Int32(co), Int32(kh), Int32(kw), Int32(c), direct)
            conv.direct = UnsafePointer(direct)
            blocks = n * oh
        }
        let scratchSize = sentio_conv_scratch(&conv)
        let template = UncheckedBox(conv)
        let jobs = blocks
        return { input, output, threads, scratchMemory in
            var bound = template.value
            bound.input = UnsafePointer(input)
            bound.output = output
            let scratch = scratchMemory.allocate(max(1, scratchSize * threads), zeroed: false)
            let params = UncheckedBox(bound)
            return { pool in
                withExtendedLifetime(memory) {
                    pool.forEachWorker(limit: jobs) { worker, workers in
                        var p = params.value
                        // Contiguous shares keep each worker's input rows together in its cache.
                        let begin = jobs * worker / workers, end = jobs * (worker + 1) / workers
                        sentio_conv_blocks(&p, Int32(begin), Int32(end), scratch + worker * scratchSize)
                    }
                }
            }
        }
    }
}

enum FastDepthwise {
    typealias Binder = (_ x: UnsafeMutablePointer<Float>, _ out: UnsafeMutablePointer<Float>) -> KernelRun

    static func prepare(input: [Int], filter: FloatTensor, bias: FloatTensor?, output: [Int], window: Window,
                        multiplier: Int, activation: Activation, weights memory: KernelMemory) -> Binder? {
        guard multiplier == 1, activation != .tanh else { return nil }
        let (n, h, w, c) = FloatTensor(shape: input, data: filter.data).nhwc
        let (_, kh, kw, _) = filter.nhwc
        let (_, oh, ow, _) = FloatTensor(shape: output, data: filter.data).nhwc
        let biasCopy = memory.allocate(c)
        if let bias { biasCopy.update(from: bias.data, count: c) }
        let padT = window.vertical(input: h, filter: kh).1
        let padL = window.horizontal(input: w, filter: kw).1
        let (lo, hi) = activation.bounds
        let template = UncheckedBox(sentio_depthwise(
            input: nil, output: nil, filter: filter.data, bias: biasCopy,
            batch: Int32(n), in_h: Int32(h), in_w: Int32(w), channels: Int32(c), out_h: Int32(oh), out_w: Int32(ow),
            k_h: Int32(kh), k_w: Int32(kw), stride_h: Int32(window.strideH), stride_w: Int32(window.strideW),
            dil_h: Int32(window.dilationH), dil_w: Int32(window.dilationW), pad_t: Int32(padT), pad_l: Int32(padL),
            act_min: lo, act_max: hi))
        let rows = n * oh
        return { input, output in
            var bound = template.value
            bound.input = UnsafePointer(input)
            bound.output = output
            let params = UncheckedBox(bound)
            return { pool in
                withExtendedLifetime(memory) {
                    pool.forEachWorker(limit: rows) { worker, workers in
                        var p = params.value
                        sentio_depthwise_rows(&p, Int32(rows * worker / workers), Int32(rows * (worker + 1) / workers))
                    }
                }
            }
        }
    }
}

/// FULLY_CONNECTED as the same packed product with one row per batch entry.
enum FastFullyConnected {
    static func prepare(input: [Int], weights: FloatTensor, bias: FloatTensor?, output: [Int], activation: Activation,
                        memory: KernelMemory) -> FastConv2D.Binder? {
        let outputs = weights.shape[0], inputs = weights.shape[1]
        let batches = input.reduce(1, *) / max(1, inputs)
        // A 1×1 convolution over a batches×1 "image" with `inputs` channels.
        let asFilter = FloatTensor(shape: [outputs, 1, 1, inputs], data: weights.data)
        return FastConv2D.prepare(input: [1, batches, 1, inputs], filter: asFilter, bias: bias, output: [1, batches, 1, outputs],
                                  window: Window(), activation: activation, weights: memory)
    }
}

enum FastElementwise {
    static func binary(_ a: FloatTensor, _ b: FloatTensor, out: FloatTensor, add: Bool, activation: Activation) -> ((ThreadPool) -> Void)? {
        guard activation != .tanh else { return nil }
        let (lo, hi) = activation.bounds
        let multiply: Int32 = add ? 0 : 1
        let count = out.count
        // Same shapes: one flat loop.
        if a.shape == b.shape, a.count == count {
            let (pa, pb, po) = (UncheckedBox(a.data), UncheckedBox(b.data), UncheckedBox(out.data))
            return { pool in
                pool.forEachWorker(limit: max(1, count / 16384)) { worker, workers in
                    sentio_binary_same(pa.value, pb.value, po.value, count * worker / workers, count * (worker + 1) / workers, multiply, lo, hi)
                }
            }
        }
        // One operand per channel (shape [C], [1, C], [1, 1, 1, C]…), in either position.
        let channels = out.shape.last ?? 1
        func perChannel(_ t: FloatTensor) -> Bool { t.count == channels && t.shape.last == channels }
        let (full, small): (FloatTensor, FloatTensor)
        if a.count == count, perChannel(b) { (full, small) = (a, b) } else if b.count == count, perChannel(a) { (full, small) = (b, a) } else { return nil }
        let rows = count / channels
        let (pf, ps, po) = (UncheckedBox(full.data), UncheckedBox(small.data), UncheckedBox(out.data))
        return { pool in
            pool.forEachWorker(limit: max(1, count / 16384)) { worker, workers in
                sentio_binary_channel(pf.value, ps.value, po.value, rows * worker / workers, rows * (worker + 1) / workers,
                                      Int32(channels), multiply, lo, hi)
            }
        }
    }

    static func prelu(_ x: FloatTensor, alpha: FloatTensor, out: FloatTensor) -> ((ThreadPool) -> Void)? {
        let channels = out.shape.last ?? 1
        guard x.count == out.count, alpha.count == channels, alpha.shape.last == channels else { return nil }
        let rows = out.count / channels
        let (px, pa, po) = (UncheckedBox(x.data), UncheckedBox(alpha.data), UncheckedBox(out.data))
        return { pool in
            pool.forEachWorker(limit: max(1, out.count / 16384)) { worker, workers in
                sentio_prelu_channel(px.value, pa.value, po.value, rows * worker / workers, rows * (worker + 1) / workers, Int32(channels))
            }
        }
    }
}

enum FastShape {
    static func pad(x: FloatTensor, before: [Int], out: FloatTensor) -> ((ThreadPool) -> Void)? {
        guard x.shape.count <= 4, before.allSatisfy({ $0 >= 0 }) else { return nil }
        let lead = 4 - x.shape.count
        let inShape = UncheckedBox([Int32](repeating: 1, count: lead) + x.shape.map { Int32($0) })
        let outShape = UncheckedBox([Int32](repeating: 1, count: lead) + out.shape.map { Int32($0) })
        let pads = UncheckedBox([Int32](repeating: 0, count: lead) + before.map { Int32($0) })
        let rows = Int(outShape.value[0] * outShape.value[1])
        let (px, po) = (UncheckedBox(x.data), UncheckedBox(out.data))
        return { pool in
            pool.forEachWorker(limit: max(1, out.count / 16384)) { worker, workers in
                sentio_pad4(px.value, inShape.value, pads.value, outShape.value, po.value,
                            Int32(rows * worker / workers), Int32(rows * (worker + 1) / workers))
            }
        }
    }
}

extension FastShape {
    static func resizeBilinear(x: FloatTensor, out: FloatTensor, alignCorners: Bool, halfPixelCenters: Bool) -> ((ThreadPool) -> Void)? {
        let (n, h, w, c) = x.nhwc
        let (_, oh, ow, _) = out.nhwc
        // The same source positions as the reference kernel, computed once.
        func table(_ input: Int, _ output: Int) -> ([Int32], [Int32], [Float]) {
            let s = alignCorners && output > 1 ? Float(input - 1) / Float(output - 1) : Float(input) / Float(output)
            var lo: [Int32] = [], hi: [Int32] = [], frac: [Float] = []
            for i in 0 ..< output {
                let v = halfPixelCenters ? (Float(i) + 0.5) * s - 0.5 : Float(i) * s
                let f = v.rounded(.down)
                lo.append(Int32(max(Int(f), 0)))
                hi.append(Int32(min(Int(v.rounded(.up)), input - 1)))
                frac.append(v - f)
            }
            return (lo, hi, frac)
        }
        let ys = UncheckedBox(table(h, oh)), xs = UncheckedBox(table(w, ow))
        let (px, po) = (UncheckedBox(x.data), UncheckedBox(out.data))
        let rows = n * oh
        return { pool in
            pool.forEachWorker(limit: max(1, out.count / 16384)) { worker, workers in
                sentio_resize_bilinear_rows(px.value, po.value, Int32(h), Int32(w), Int32(c), Int32(oh), Int32(ow),
                                            ys.value.0, ys.value.1, ys.value.2, xs.value.0, xs.value.1, xs.value.2,
                                            Int32(rows * worker / workers), Int32(rows * (worker + 1) / workers))
            }
        }
    }

    static func pool(x: FloatTensor, out: FloatTensor, window: Window, activation: Activation, max isMax: Bool) -> ((ThreadPool) -> Void)? {
        guard activation != .tanh else { return nil }
        let (n, h, w, c) = x.nhwc
        let (_, oh, ow, _) = out.nhwc
        let padT = window.vertical(input: h, filter: window.filterH).1
        let padL = window.horizontal(input: w, filter: window.filterW).1
        let (lo, hi) = activation.bounds
        let (px, po) = (UncheckedBox(x.data), UncheckedBox(out.data))
        let rows = n * oh
        return { pool in
            pool.forEachWorker(limit: max(1, out.count / 16384)) { worker, workers in
                sentio_pool_rows(px.value, po.value, Int32(h), Int32(w), Int32(c), Int32(oh), Int32(ow),
                                 Int32(window.filterH), Int32(window.filterW), Int32(window.strideH), Int32(window.strideW),
                                 Int32(padT), Int32(padL), isMax ? 1 : 0, lo, hi,
                                 Int32(rows * worker / workers), Int32(rows * (worker + 1) / workers))
            }
        }
    }
}

extension FastElementwise {
    /// RELU, RELU6, LOGISTIC, HARD_SWISH: kinds 0–3 of `sentio_unary`.
    static func unary(_ x: FloatTensor, out: FloatTensor, kind: Int32) -> ((ThreadPool) -> Void)? {
        let count = out.count
        let (px, po) = (UncheckedBox(x.data), UncheckedBox(out.data))
        return { pool in
            pool.forEachWorker(limit: max(1, count / 16384)) { worker, workers in
                sentio_unary(px.value, po.value, count * worker / workers, count * (worker + 1) / workers, kind)
            }
        }
    }
}

extension FastShape {
    /// MEAN over the two spatial axes of an NHWC tensor.
    static func spatialMean(x: FloatTensor, axes: Set<Int>, out: FloatTensor) -> ((ThreadPool) -> Void)? {
        guard x.shape.count == 4, axes == [1, 2] else { return nil }
        let (n, h, w, c) = x.nhwc
        let (px, po) = (UncheckedBox(x.data), UncheckedBox(out.data))
        return { _ in sentio_spatial_mean(px.value, po.value, 0, Int32(n), Int32(h * w), Int32(c)) }
    }
}

/// Transposed convolution as a packed product (every input pixel times the filter, giving
/// k_h·k_w·out_c values) followed by a scatter-add into the output rows.
enum FastTransposeConv {
    static func prepare(input: [Int], filter: FloatTensor, bias: FloatTensor?, output: [Int], strideH: Int, strideW: Int,
                        padTop: Int, padLeft: Int, activation: Activation, weights memory: KernelMemory) -> FastConv2D.Binder? {
        guard activation != .tanh else { return nil }
        let (n, h, w, ci) = FloatTensor(shape: input, data: filter.data).nhwc
        let (co, kh, kw, _) = filter.nhwc
        let (_, oh, ow, _) = FloatTensor(shape: output, data: filter.data).nhwc
        // Rows (ky, kx, o) of the product's weight matrix, each over the input channels.
        let columns = kh * kw * co
        let reordered = memory.allocate(columns * ci, zeroed: false)
        for o in 0 ..< co {
            for ky in 0 ..< kh {
                for kx in 0 ..< kw {
                    let src = filter.data + ((o * kh + ky) * kw + kx) * ci
                    (reordered + ((ky * kw + kx) * co + o) * ci).update(from: src, count: ci)
                }
            }
        }
        guard let multiply = FastConv2D.prepare(input: input, filter: FloatTensor(shape: [columns, 1, 1, ci], data: reordered), bias: nil,
                                                output: [n, h, w, columns], window: Window(), activation: .none, weights: memory)
        else { return nil }
        let biasCopy = memory.allocate(co)
        if let bias { biasCopy.update(from: bias.data, count: co) }
        let (lo, hi) = activation.bounds
        let rows = n * oh, count = n * oh * ow * co
        return { x, out, threads, scratch in
            // The product is per-interpreter working memory, like the arena.
            let cols = scratch.allocate(n * h * w * columns, zeroed: false)
            let product = multiply(x, cols, threads, scratch)
            let po = UncheckedBox(out)
            return { pool in
                withExtendedLifetime(memory) {
                    product(pool)
                    pool.forEachWorker(limit: max(1, count / 16384)) { worker, workers in
                        sentio_col2im_rows(cols, biasCopy, po.value, Int32(h), Int32(w), Int32(oh), Int32(ow), Int32(co), Int32(kh), Int32(kw),
                                           Int32(strideH), Int32(strideW), Int32(padTop), Int32(padLeft), lo, hi,
                                           Int32(rows * worker / workers), Int32(rows * (worker + 1) / workers))
                    }
                }
            }
        }
    }
}
