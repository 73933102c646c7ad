// Fast kernels: placeholders return nil (the reference kernel is used) until the SIMD paths exist.
enum FastConv2D {
    static func make(x: FloatTensor, filter: FloatTensor, bias: FloatTensor?, out: FloatTensor, window: Window, activation: Activation) -> ((ThreadPool) -> Void)? { nil }
}
enum FastDepthwise {
    static func make(x: FloatTensor, filter: FloatTensor, bias: FloatTensor?, out: FloatTensor, window: Window, multiplier: Int, activation: Activation) -> ((ThreadPool) -> Void)? { nil }
}
enum FastFullyConnected {
    static func make(x: FloatTensor, weights: FloatTensor, bias: FloatTensor?, out: FloatTensor, activation: Activation) -> ((ThreadPool) -> Void)? { nil }
}
enum FastElementwise {
    static func binary(_ a: FloatTensor, _ b: FloatTensor, out: FloatTensor, add: Bool, activation: Activation) -> ((ThreadPool) -> Void)? { nil }
    static func prelu(_ x: FloatTensor, alpha: FloatTensor, out: FloatTensor) -> ((ThreadPool) -> Void)? { nil }
}
