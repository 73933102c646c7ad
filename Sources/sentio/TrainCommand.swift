import ArgumentParser
import Foundation
import SentioNeural

struct TrainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train",
        abstract: "Train a small network in Swift and write it as a TFLite model.",
        subcommands: [Drawings.self])

    struct Drawings: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Train the drawing judge (3 convolutions, max-pool, 2 dense layers) on Quick, Draw! doodles.",
            discussion: "DIR holds <class>__*.npy bitmaps and/or <class>__*.ndjson strokes; every fifth drawing of each class is held out for the accuracy.")

        @Option(help: "The folder of drawings.") var data: String
        @Option(help: "Where to write the trained model (.tflite).") var out: String
        @Option(help: "Passes over the training drawings.") var epochs = 5
        @Option(help: "Drawings per step.") var batchSize = 64
        @Option(help: "adam or sgd (SGD with momentum 0.9).") var optimizer = "adam"
        @Option(help: "Learning rate (default 0.001 for Adam, 0.01 for SGD).") var learningRate: Float?
        @Option(help: "Seed of the initial weights, shuffles and dropout.") var seed: UInt64 = 1
        @Option(help: "Threads (default: all cores).") var threads: Int?
        @Flag(help: "Print the result as JSON (progress goes to standard error).") var json = false
        @Option(help: "Also write the split as numpy files (train_x, train_y, test_x, test_y .npy and classes.txt) in this folder, for the Keras reference.")
        var saveSplit: String?

        struct Result: Encodable {
            let classes: [String], train: Int, test: Int, epochs: Int, batch_size: Int, optimizer: String
            let loss: Double, train_accuracy: Double, test_accuracy: Double, seconds: Double, model: String
        }

        func run() throws {
            guard epochs > 0, batchSize > 0 else { throw ValidationError("--epochs and --batch-size take positive counts") }
            let chosen: Optimizer
            switch optimizer {
            case "adam": chosen = .adam(learningRate: learningRate ?? 0.001)
            case "sgd": chosen = .sgd(learningRate: learningRate ?? 0.01, momentum: 0.9)
            default: throw ValidationError("--optimizer is adam or sgd")
            }
            let set = try DrawingSet(directory: data)
            let (train, test) = try set.split()
            func say(_ line: String) {
                if json { FileHandle.standardError.write(Data((line + "\n").utf8)) } else { print(line) }
            }
            if let saveSplit {
                try FileManager.default.createDirectory(atPath: saveSplit, withIntermediateDirectories: true)
                for (name, samples) in [("train", train), ("test", test)] {
                    try NumpyFile.float32(samples.inputs, shape: [samples.count] + samples.shape).write(to: URL(fileURLWithPath: "\(saveSplit)/\(name)_x.npy"))
                    try NumpyFile.int32(samples.labels.map(Int32.init), shape: [samples.count]).write(to: URL(fileURLWithPath: "\(saveSplit)/\(name)_y.npy"))
                }
                try (set.classes.joined(separator: "\n") + "\n").write(toFile: "\(saveSplit)/classes.txt", atomically: true, encoding: .utf8)
            }
            say("\(set.classes.count) classes (\(set.classes.joined(separator: ", "))): \(train.count) drawings to train on, \(test.count) held out")
            let network = try SequentialNetwork.drawingJudge(classes: set.classes.count, seed: seed)
            let pool = ThreadPool(threads: threads ?? Interpreter.coreCount)
            var last: EpochReport?
            var total = 0.0
            try network.fit(train, epochs: epochs, batchSize: batchSize, optimizer: chosen, pool: pool) { r in
                last = r
                total += r.seconds
                say(String(format: "epoch %d/%d  loss %.4f  accuracy %.1f%%  %.1f s  (about %.0f s left)", r.epoch, r.epochs, r.loss,
                           r.accuracy * 100, r.seconds, r.secondsLeft))
            }
            let accuracy = network.accuracy(test, pool: pool)
            try Data(try network.tfliteModel(description: "Sentio drawing judge: " + set.classes.joined(separator: ", "))).write(to: URL(fileURLWithPath: out))
            let result = Result(classes: set.classes, train: train.count, test: test.count, epochs: epochs, batch_size: batchSize, optimizer: optimizer,
                                loss: last?.loss ?? 0, train_accuracy: last?.accuracy ?? 0, test_accuracy: accuracy, seconds: total, model: out)
            if json { return try JSONOutput.print(result) }
            print(String(format: "held-out accuracy %.2f%% (%d drawings); %.1f s of training; wrote %@", accuracy * 100, test.count, total, out as NSString))
        }
    }
}

/// numpy `.npy` files (format 1.0, little-endian, C order), for handing data to Python.
enum NumpyFile {
    static func file(descr: String, shape: [Int], payload: Data) -> Data {
        let dims = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var header = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(dims), }"
        // Magic, version, length, header: the whole preamble a multiple of 64, ending in a newline.
        while (10 + header.utf8.count + 1) % 64 != 0 { header += " " }
        header += "\n"
        var data = Data([0x93] + Array("NUMPY".utf8) + [1, 0])
        let length = UInt16(header.utf8.count)
        data += Data([UInt8(length & 0xFF), UInt8(length >> 8)]) + Data(header.utf8)
        return data + payload
    }

    static func float32(_ values: [Float], shape: [Int]) -> Data {
        file(descr: "<f4", shape: shape, payload: values.withUnsafeBufferPointer { Data(buffer: $0) })
    }

    static func int32(_ values: [Int32], shape: [Int]) -> Data {
        file(descr: "<i4", shape: shape, payload: values.withUnsafeBufferPointer { Data(buffer: $0) })
    }
}
