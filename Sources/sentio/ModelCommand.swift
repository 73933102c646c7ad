import ArgumentParser
import Foundation
import SentioNeural

struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Inspect, run and benchmark a model with Sentio's engine.",
        subcommands: [Info.self, Run.self, Bench.self])

    /// A model given by path, or by name from the model store.
    static func resolve(_ model: String) throws -> String {
        FileManager.default.fileExists(atPath: model) ? model : try CommandEnvironment.store.path(of: model)
    }

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Inputs, outputs, operators, parameters and multiply-accumulates.")
        @Argument(help: "A model file (.tflite, .onnx, a dlib .dat net), or a model name from the store.") var model: String
        @Flag(help: "Print JSON (keys: format, inputs, outputs [name, shape], operators {name: count}, parameters, macs, macsByOperator).")
        var json = false

        struct TensorJSON: Encodable { let name: String; let shape: [Int] }
        struct InfoJSON: Encodable {
            let format: String
            let inputs: [TensorJSON], outputs: [TensorJSON]
            let operators: [String: Int]
            let parameters: Int
            let macs: Int
            let macsByOperator: [String: Int]
        }

        func run() throws {
            let path = try ModelCommand.resolve(model)
            let graph = try ModelLoader.load(path: path)
            let interpreter = try Interpreter(graph: graph, threads: 1, kernels: .reference)
            let inputs = graph.inputs.enumerated().map { TensorJSON(name: graph.tensors[$0.element].name, shape: interpreter.inputShape($0.offset)) }
            let outputs = graph.outputs.enumerated().map { TensorJSON(name: graph.tensors[$0.element].name, shape: interpreter.outputShape($0.offset)) }
            let macs = graph.multiplyAccumulates
            let info = InfoJSON(format: graph.format, inputs: inputs, outputs: outputs, operators: graph.operatorCounts,
                                parameters: graph.parameterCount, macs: macs.values.reduce(0, +), macsByOperator: macs)
            if json { return try JSONOutput.print(info) }
            print("\(path) (\(info.format))")
            for t in inputs { print("  input  \(t.name) \(t.shape)") }
            for t in outputs { print("  output \(t.name) \(t.shape)") }
            print("  \(graph.nodes.count) nodes: " + info.operators.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
            print("  \(info.parameters) parameters, \(String(format: "%.1f", Double(info.macs) / 1e6)) M multiply-accumulates")
        }
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a model on raw little-endian inputs; write DIR/0.bin, DIR/1.bin, … in output order.",
            discussion: "Inputs and outputs are raw values in each tensor's own type: float32, or int8/uint8 for quantized models.")
        @Argument(help: "A model file (.tflite, .onnx, a dlib .dat net), or a model name from the store.") var model: String
        @Option(name: .customLong("input"), help: "Raw file for each input (its tensor's type, NHWC), in input order.") var inputs: [String] = []
        @Option(help: "Directory for the outputs.") var outputDir: String
        @Option(help: "Threads (default: all cores).") var threads: Int?
        @Option(help: "Kernels: fast or reference.") var kernels: String = "fast"
        @Flag(help: "Also write every node's output as DIR/tensor-N.bin (N: the tensor's index in the file), to find where two engines part.")
        var allTensors = false
        @Option(help: "Quantized models: whose integer arithmetic to reproduce, xnnpack (LiteRT's default) or tfliteReference.")
        var arithmetic: String = "xnnpack"

        func run() throws {
            guard let choice = KernelChoice(rawValue: kernels) else { throw ValidationError("--kernels is fast or reference") }
            var graph = try ModelLoader.load(path: ModelCommand.resolve(model))
            let modelOutputs = graph.outputs.count
            if allTensors {
                graph.outputs += graph.nodes.flatMap(\.outputs).filter { !graph.outputs.contains($0) }
            }
            guard let arithmetic = QuantizedArithmetic(rawValue: arithmetic) else { throw ValidationError("--arithmetic is xnnpack or tfliteReference") }
            let interpreter = try Interpreter(graph: graph, threads: threads, kernels: choice, arithmetic: arithmetic)
            guard inputs.count == interpreter.graph.inputs.count else {
                throw ValidationError("the model has \(interpreter.graph.inputs.count) input(s); \(inputs.count) --input given")
            }
            for (i, path) in inputs.enumerated() {
                guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
                if interpreter.inputType(i) != .float32 {
                    do { try interpreter.setInput(i, bytes: [UInt8](data)) } catch { throw ValidationError("\(path): \(error)") }
                    continue
                }
                guard data.count % 4 == 0 else { throw ValidationError("\(path): \(data.count) bytes is not a whole number of float32") }
                let values = data.withUnsafeBytes { raw in
                    (0 ..< data.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
                }
                try interpreter.setInput(i, values)
            }
            interpreter.invoke()
            try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
            for i in 0 ..< interpreter.graph.outputs.count {
                let data = interpreter.outputType(i) == .float32
                    ? interpreter.output(i).withUnsafeBufferPointer { Data(buffer: $0) } : Data(interpreter.outputBytes(i))
                let name = i < modelOutputs ? "\(i).bin" : "tensor-\(interpreter.graph.outputs[i]).bin"
                try data.write(to: URL(fileURLWithPath: "\(outputDir)/\(name)"))
            }
        }
    }

    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Latency of one inference on a fixed input, after warm-up.")
        @Argument(help: "A model file (.tflite, .onnx, a dlib .dat net), or a model name from the store.") var model: String
        @Option(help: "Threads (default: all cores).") var threads: Int?
        @Option(help: "Timed runs.") var runs = 50
        @Option(help: "Warm-up runs.") var warmup = 5
        @Option(help: "Kernels: fast or reference.") var kernels: String = "fast"
        @Flag(help: "Print JSON: median_ms, min_ms, max_ms, threads, runs.") var json = false
        @Flag(help: "Print the time of each node (median over the runs).") var profile = false
        @Option(help: "Quantized models: xnnpack (LiteRT's default arithmetic) or tfliteReference.") var arithmetic: String = "xnnpack"

        struct Result: Encodable { let median_ms: Double, min_ms: Double, max_ms: Double, threads: Int, runs: Int }

        func run() throws {
            guard runs > 0, warmup >= 0 else { throw ValidationError("--runs must be positive") }
            guard let choice = KernelChoice(rawValue: kernels) else { throw ValidationError("--kernels is fast or reference") }
            guard let arithmetic = QuantizedArithmetic(rawValue: arithmetic) else { throw ValidationError("--arithmetic is xnnpack or tfliteReference") }
            let interpreter = try Interpreter(graph: ModelLoader.load(path: ModelCommand.resolve(model)), threads: threads, kernels: choice,
                                              arithmetic: arithmetic)
            // A fixed, deterministic input in [0, 1], as an image would be.
            for i in 0 ..< interpreter.graph.inputs.count {
                if interpreter.inputType(i) != .float32 {
                    try interpreter.withInputBytes(i) { buffer in
                        for j in buffer.indices { buffer[j] = UInt8((j * 7919) % 256) }
                    }
                    continue
                }
                try interpreter.withInput(i) { buffer in
                    for j in buffer.indices { buffer[j] = Float((j * 7919) % 256) / 255 }
                }
            }
            for _ in 0 ..< warmup { interpreter.invoke() }
            if profile {
                var perNode = [[Double]](repeating: [], count: interpreter.kernelNames.count)
                for _ in 0 ..< runs { for (i, t) in interpreter.profile().enumerated() { perNode[i].append(t) } }
                var byOp: [String: Double] = [:]
                for (i, times) in perNode.enumerated() {
                    let median = times.sorted()[times.count / 2] * 1e3
                    byOp[interpreter.kernelNames[i], default: 0] += median
                    let node = interpreter.graph.nodes[i]
                    let shapes = node.inputs.filter { $0 >= 0 }.prefix(2).map { interpreter.shapes[$0].description }.joined(separator: " ")
                    print(String(format: "%4d %-28@ %8.3f ms  %@ -> %@", i, interpreter.kernelNames[i] as NSString, median,
                                 shapes as NSString, interpreter.shapes[node.outputs[0]].description as NSString))
                }
                for (op, ms) in byOp.sorted(by: { $0.value > $1.value }) { print(String(format: "%-28@ %8.3f ms", op as NSString, ms)) }
                return
            }
            let result = try SentioBench.run(runs) { interpreter.invoke() }
            let out = Result(median_ms: result.median_ms, min_ms: result.min_ms, max_ms: result.max_ms, threads: interpreter.threads, runs: runs)
            if json { try JSONOutput.print(out) } else {
                print(String(format: "median %.3f ms, min %.3f ms, max %.3f ms (%d thread%@, %d runs)", out.median_ms, out.min_ms, out.max_ms,
                             out.threads, out.threads == 1 ? "" : "s", runs))
            }
        }
    }
}
