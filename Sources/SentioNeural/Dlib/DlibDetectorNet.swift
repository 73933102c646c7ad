/// A dlib object detector's net (trained with `loss_mmod` over `input_rgb_image_pyramid`) with
/// what turning its scores into boxes needs, all read from the `.dat` file.
///
/// The graph takes the tiled image pyramid already normalized — (pixel − mean) / 256 per
/// channel, zero between the tiles — because dlib normalizes the image first and builds the
/// pyramid from those numbers. Its one output holds a score per position and detector window.
public struct DlibDetectorNet: Sendable {
    public var graph: Graph
    public var options: MMODOptions
    public var pyramid: ImagePyramidInput
    /// The score at output column c, row r is for a window centred on input column
    /// `c·stride + offset`, row `r·stride + offset` (dlib's `output_tensor_to_input_tensor`).
    public var stride: Int
    public var offset: Int
}

/// dlib's `mmod_options`: the detection windows and the overlap rule of non-maximum suppression.
public struct MMODOptions: Sendable, Equatable {
    public struct DetectorWindow: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var label: String
    }

    /// One window per output channel.
    public var windows: [DetectorWindow]
    /// Two boxes overlap when their intersection over the rectangle bounding both exceeds
    /// `nmsIoU`, or covers more than `nmsCovered` of either (dlib's `test_box_overlap`).
    public var nmsIoU: Double
    public var nmsCovered: Double
    /// Whether the net also regresses box corrections (four more channels per window).
    public var usesBoundingBoxRegression: Bool
}

/// dlib's `input_rgb_image_pyramid<pyramid_down<N>>`: the image and ever smaller copies of it
/// (each `(N−1)/N` the size of the one before) tiled into one input.
public struct ImagePyramidInput: Sendable, Equatable {
    /// Per-channel mean subtracted before the division by 256 (red, green, blue).
    public var mean: [Float]
    /// Pixels between tiles, and around the whole.
    public var padding: Int
    public var outerPadding: Int
    /// N of `pyramid_down<N>`.
    public var downsampling: Int
}

extension DlibNetLoader {
    /// Loads an MMOD detector's net, planned for a tiled input of `rows` × `columns`.
    public static func loadDetector(_ file: MappedFile, rows: Int, columns: Int) throws -> DlibDetectorNet {
        var reader = DlibReader(file.bytes)
        guard try reader.integer() == 1 else { throw reader.fail("loss layer version is not 1 (not a dlib net)") }
        let lossName = try reader.string(maxLength: 64)
        let architecture = DlibArchitecture.mmodFaceDetector
        guard lossName.hasPrefix(architecture.loss) else {
            throw ModelError.malformed("dlib net with loss layer '\(lossName)' is not an MMOD detector")
        }
        var builder = Builder(architecture: architecture)
        builder.inputSize = (rows, columns)
        let graph = try builder.read(&reader, lossName: lossName)
        guard let options = builder.mmod, let pyramid = builder.pyramid else {
            throw ModelError.malformed("dlib MMOD net without detector options or pyramid input")
        }
        let channels = options.windows.count * (options.usesBoundingBoxRegression ? 5 : 1)
        guard let outShape = graph.tensors[graph.outputs[0]].shape.last, outShape == channels else {
            throw ModelError.malformed("dlib MMOD net: \(options.windows.count) detector windows but \(graph.tensors[graph.outputs[0]].shape.last ?? 0) output channels")
        }
        return DlibDetectorNet(graph: graph, options: options, pyramid: pyramid,
                               stride: builder.outputToInput.scale, offset: builder.outputToInput.offset)
    }
}
