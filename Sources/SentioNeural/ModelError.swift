/// Everything that can go wrong loading or running a model; each says what and where.
public enum ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened, mapped or read.
    case unreadable(path: String, reason: String)
    /// The bytes are not a well-formed model: `detail` says which structure and offset.
    case malformed(String)
    /// An operator the engine does not implement, by name, and the node that uses it.
    case unsupportedOperator(name: String, node: Int)
    /// A quantization scheme the engine does not run (custom schemes, per-channel parameters
    /// where only per-tensor ones are defined, int16 activations), with where.
    case unsupportedQuantization(String)
    /// The graph is inconsistent (shapes, tensor indices, types), with the node and detail.
    case invalidGraph(String)
    /// An input given to the interpreter does not fit.
    case invalidInput(String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read model \(path): \(reason)"
        case let .malformed(detail): "malformed model: \(detail)"
        case let .unsupportedOperator(name, node): "unsupported operator \(name) (node \(node))"
        case let .unsupportedQuantization(detail): "unsupported quantization: \(detail)"
        case let .invalidGraph(detail): "invalid graph: \(detail)"
        case let .invalidInput(detail): "invalid input: \(detail)"
        }
    }
}
