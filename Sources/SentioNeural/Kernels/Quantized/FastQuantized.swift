import CSentioKernels

/// The requantization parameters of a quantized convolution in the C kernels' layout, kept
/// in the model's shared memory.
private func requantization(_ p: QuantizedConvParameters, channels: Int, memory: KernelMemory) -> sentio_requant {
    let padded = (channels + Int(SENTIO_QNR) - 1) / Int(SENTIO_QNR) * Int(SENTIO_QNR)
    let multipliers = UnsafeMutableRawPointer(memory.allocate(padded)).bindMemory(to: Int32.self, capacity: padded)
    let shifts = UnsafeMutableRawPointer(memory.allocate(padded)).bindMemory(to: Int32.self, capacity: padded)
    for o in 0 ..< padded {
        multipliers[o] = o < channels ? p.multipliers[o].multiplier : 0
        shifts[o] = o < channels ? Int32(p.multipliers[o].shift) : 0
    }
    return sentio_requant(multiplier: multipliers, shift: shifts, out_zero: p.outputZero, out_min: p.range.lowerBound,
                          out_max: p.range.upperBound, rounds_once: p.roundsOnce ? 1 : 0)
}

/// int8 CONV_2D and FULLY_CONNECTED as a u8 × s8 product (CSentioKernels/qconv.c: AVX-512 VNNI
/// where the CPU has it, plain C otherwise), bit-exact with the reference kernel.
enum FastQuantizedConv {
    typealias Binder = (_ x: UnsafeMutableRawPointer, _ out: UnsafeMutableRawPointer, _ threads: Int, _ scratch: KernelMemory) -> KernelRun

    /// Packs the filter once into `memory`; nil when the kernel does not apply (filters with
    /// zero points, which the int8 scheme never has).
    static func prepare(input: [Int], filter: UnsafePointer<Int8>, filterShape: [Int], output: [Int], window: Window,
                        parameters p: QuantizedConvParameters, portable: Bool = false, memory: KernelMemory) -> Binder? {
        guard p.filterZeros.allSatisfy({ $0 == 0 }), input.count == 4, filterShape.count == 4, output.count == 4 else { return nil }
        let (n, h, w, c) = (input[0], input[1], input[2], input[3])
        let (co, kh, kw) = (filterShape[0], filterShape[1], filterShape[2])
        let (oh, ow) = (output[1], output[2])
        let k = kh * kw * c
        let packedBytes = sentio_qpacked_size(Int32(co), Int32(k))
        let packed = UnsafeMutableRawPointer(memory.allocate((packedBytes + 3) / 4, zeroed: false)).bindMemory(to: Int8.self, capacity: packedBytes)
        sentio_qpack(filter, Int32(co), Int32(k), packed)
        // bias' = bias − (128 + input zero point) · Σ filter (the inputs enter offset by 128).
        let panels = (co + Int(SENTIO_QNR) - 1) / Int(SENTIO_QNR)
        let bias = UnsafeMutableRawPointer(memory.allocate(panels * Int(SENTIO_QNR))).bindMemory(to: Int32.self, capacity: panels * Int(SENTIO_QNR))
        for o in 0 ..< panels * Int(SENTIO_QNR) {
            guard o < co else { bias[o] = 0; continue }
            var sum: Int32 = 0
            for j in 0 ..< k { sum &+= Int32(filter[o * k + j]) }
            bias[o] = p.bias[o] &- (128 &+ p.inputZero) &* sum
        }
        let conv = sentio_qconv(
            input: nil, output: nil, packed: packed, bias: bias, requant: requantization(p, channels: co, memory: memory),
            input_zero: p.inputZero, batch: Int32(n), in_h: Int32(h), in_w: Int32(w), in_c: Int32(c),
            out_h: Int32(oh), out_w: Int32(ow), out_c: Int32(co), k_h: Int32(kh), k_w: Int32(kw),
            stride_h: Int32(window.strideH), stride_w: Int32(window.strideW), dil_h: Int32(window.dilationH), dil_w: Int32(window.dilationW),
            pad_t: Int32(window.vertical(input: h, filter: kh).1), pad_l: Int32(window.horizontal(input: w, filter: kw).1),
            portable: portable ? 1 : 0)
        var probe = conv
        let scratchBytes = sentio_qconv_scratch_size(&probe)
        let template = UncheckedBox(conv)
        let pixels = n * oh * ow
        return { input, output, threads, scratchMemory in
            var bound = template.value
            bound.input = UnsafePointer(input.assumingMemoryBound(to: Int8.self))
            bound.output = output.assumingMemoryBound(to: Int8.self)
            let stride = (scratchBytes + 63) / 64 * 64
            let scratch = UnsafeMutableRawPointer(scratchMemory.allocate(max(16, stride * threads / 4), zeroed: false))
            let params = UncheckedBox(bound)
            let blocks = (pixels + 63) / 64
            return { pool in
                withExtendedLifetime(memory) {
                    pool.forEachWorker(limit: blocks) { worker, workers in
                        var c = params.value
                        let begin = blocks * worker / workers * 64, end = min(pixels, blocks * (worker + 1) / workers * 64)
                        sentio_qconv_run(&c, Int32(begin), Int32(end), scratch + worker * stride)
                    }
                }
            }
        }
    }
}

/// int8 DEPTHWISE_CONV_2D (CSentioKernels/qconv.c), bit-exact with the reference kernel.
enum FastQuantizedDepthwise {
    typealias Binder = (_ x: UnsafeMutableRawPointer, _ out: UnsafeMutableRawPointer) -> KernelRun

    static func prepare(input: [Int], filter: UnsafePointer<Int8>, filterShape: [Int], output: [Int], window: Window, multiplier: Int,
                        parameters p: QuantizedConvParameters, portable: Bool = false, memory: KernelMemory) -> Binder? {
        guard p.filterZeros.allSatisfy({ $0 == 0 }), input.count == 4, filterShape.count == 4, output.count == 4 else { return nil }
        let (n, h, w, c) = (input[0], input[1], input[2], input[3])
        let (kh, kw, co) = (filterShape[1], filterShape[2], filterShape[3])
        let (oh, ow) = (output[1], output[2])
        let bias = UnsafeMutableRawPointer(memory.allocate(co + 16)).bindMemory(to: Int32.self, capacity: co + 16)
        for o in 0 ..< co + 16 { bias[o] = o < co ? p.bias[o] : 0 }
        let conv = sentio_qdepthwise(
            input: nil, output: nil, filter: filter, bias: bias, requant: requantization(p, channels: co, memory: memory),
            input_zero: p.inputZero, multiplier: Int32(multiplier), batch: Int32(n), in_h: Int32(h), in_w: Int32(w), in_c: Int32(c),
            out_h: Int32(oh), out_w: Int32(ow), out_c: Int32(co), k_h: Int32(kh), k_w: Int32(kw),
            stride_h: Int32(window.strideH), stride_w: Int32(window.strideW), dil_h: Int32(window.dilationH), dil_w: Int32(window.dilationW),
            pad_t: Int32(window.vertical(input: h, filter: kh).1), pad_l: Int32(window.horizontal(input: w, filter: kw).1),
            portable: portable ? 1 : 0)
        let template = UncheckedBox(conv)
        let rows = n * oh
        return { input, output in
            var bound = template.value
            bound.input = UnsafePointer(input.assumingMemoryBound(to: Int8.self))
            bound.output = output.assumingMemoryBound(to: Int8.self)
            let params = UncheckedBox(bound)
            return { pool in
                withExtendedLifetime(memory) {
                    pool.forEachWorker(limit: rows) { worker, workers in
                        var c = params.value
                        sentio_qdepthwise_run(&c, Int32(rows * worker / workers), Int32(rows * (worker + 1) / workers))
                    }
                }
            }
        }
    }
}

/// int8 ADD (CSentioKernels/qconv.c), bit-exact with the reference kernel.
enum FastQuantizedElementwise {
    static func add(_ a: UnsafePointer<Int8>, _ b: UnsafePointer<Int8>, out: UnsafeMutablePointer<Int8>, count: Int,
                    parameters p: QuantizedAddParameters, portable: Bool = false) {
        var params = sentio_qadd_params(
            a_zero: p.inputZeros.0, b_zero: p.inputZeros.1, a_multiplier: p.inputMultipliers.0.multiplier,
            a_shift: Int32(p.inputMultipliers.0.shift), b_multiplier: p.inputMultipliers.1.multiplier, b_shift: Int32(p.inputMultipliers.1.shift),
            out_multiplier: p.outputMultiplier.multiplier, out_shift: Int32(p.outputMultiplier.shift), out_zero: p.outputZero,
            out_min: p.range.lowerBound, out_max: p.range.upperBound, left_shift: Int32(QuantizedAddParameters.leftShift),
            portable: portable ? 1 : 0)
        sentio_qadd(a, b, out, 0, count, &params)
    }
}
