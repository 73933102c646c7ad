import CSentioKernels

/// Fast int8 convolution (CSentioKernels/qconv.c); nil where it does not apply.
enum FastQuantizedConv {
    typealias Binder = (_ x: UnsafeMutableRawPointer, _ out: UnsafeMutableRawPointer, _ threads: Int, _ scratch: KernelMemory) -> KernelRun

    static func prepare(input: [Int], filter: UnsafePointer<Int8>, filterShape: [Int], output: [Int], window: Window,
                        parameters: QuantizedConvParameters, memory: KernelMemory) -> Binder? {
        nil
    }
}

/// Fast int8 depthwise convolution; nil where it does not apply.
enum FastQuantizedDepthwise {
    typealias Binder = (_ x: UnsafeMutableRawPointer, _ out: UnsafeMutableRawPointer) -> KernelRun

    static func prepare(input: [Int], filter: UnsafePointer<Int8>, filterShape: [Int], output: [Int], window: Window, multiplier: Int,
                        parameters: QuantizedConvParameters, memory: KernelMemory) -> Binder? {
        nil
    }
}

enum FastQuantizedElementwise {
    static func add(_ a: UnsafePointer<Int8>, _ b: UnsafePointer<Int8>, out: UnsafeMutablePointer<Int8>, count: Int,
                    parameters p: QuantizedAddParameters) {
        QuantizedReference.add(a, b, out: out, count: count, parameters: p)
    }
}
