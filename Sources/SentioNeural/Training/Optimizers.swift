#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How parameters move against their gradients, as Keras defines it.
public enum Optimizer: Sendable, Equatable {
    /// v ← momentum · v − rate · g; θ ← θ + v.
    case sgd(learningRate: Float, momentum: Float)
    /// Adam with Keras's defaults for β₁, β₂, ε: m̂ / (√v̂ + ε), bias-corrected.
    case adam(learningRate: Float, beta1: Float = 0.9, beta2: Float = 0.999, epsilon: Float = 1e-7)
}

/// The optimizer's state per parameter (velocities, moments) and the step count.
final class OptimizerState {
    let optimizer: Optimizer
    private var first: [[Float]] = []
    private var second: [[Float]] = []
    private var steps = 0

    init(_ optimizer: Optimizer, parameters: [Parameter]) {
        self.optimizer = optimizer
        first = parameters.map { [Float](repeating: 0, count: $0.value.count) }
        second = parameters.map { [Float](repeating: 0, count: $0.value.count) }
    }

    /// One step over `parameters` with their gradients (already averaged over the batch).
    func step(_ parameters: [Parameter]) {
        steps += 1
        switch optimizer {
        case let .sgd(rate, momentum):
            for (k, p) in parameters.enumerated() {
                for i in p.value.indices {
                    first[k][i] = momentum * first[k][i] - rate * p.gradient[i]
                    p.value[i] += first[k][i]
                }
            }
        case let .adam(rate, beta1, beta2, epsilon):
            let t = Float(steps)
            let correction1 = 1 - Float(pow(Double(beta1), Double(t))), correction2 = 1 - Float(pow(Double(beta2), Double(t)))
            for (k, p) in parameters.enumerated() {
                for i in p.value.indices {
                    let g = p.gradient[i]
                    first[k][i] = beta1 * first[k][i] + (1 - beta1) * g
                    second[k][i] = beta2 * second[k][i] + (1 - beta2) * g * g
                    let mHat = first[k][i] / correction1, vHat = second[k][i] / correction2
                    p.value[i] -= rate * mHat / (vHat.squareRoot() + epsilon)
                }
            }
        }
    }
}

