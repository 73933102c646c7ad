/// Loads dlib deep nets (`.dat` files written by `dlib::serialize(net)`) into a ``Graph``.
///
/// The file nests layers the way the C++ type nests them: the loss layer's version and
/// details, then one version number per layer from the top down, then the input layer, then
/// each layer's details from the bottom up (each followed by its training state, which is
/// read and dropped). The structure is checked against a ``DlibArchitecture``.
///
/// Mapping onto the graph (NHWC, batch 1): the input layer's mean subtraction and 1/256 scale
/// become ADD and MUL; `con` becomes CONV_2D with dlib's symmetric padding; `affine` (a batch
/// norm frozen into γ and β) is folded into the convolution before it; `relu` is fused into
/// the node before it; `add_prev` of tensors of different sizes pads the smaller with zeros,
/// as dlib's `tt::add` does; `avg_pool` with a 0×0 window is the global mean; `fc` weights are
/// reordered from dlib's channel-major flattening to NHWC.
public enum DlibNetLoader {
    /// True when `bytes` start like a dlib net: version 1 of a loss layer and a `loss_` name.
    public static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var r = DlibReader(bytes)
        guard (try? r.integer()) == 1, let name = try? r.string(maxLength: 64) else { return false }
        return name.hasPrefix("loss_")
    }

    public static func load(path: String) throws -> Graph {
        try load(MappedFile(path: path))
    }

    public static func load(_ file: MappedFile) throws -> Graph {
        var reader = DlibReader(file.bytes)
        guard try reader.integer() == 1 else { throw reader.fail("loss layer version is not 1 (not a dlib net)") }
        let lossName = try reader.string(maxLength: 64)
        guard let architecture = DlibArchitecture.known.first(where: { lossName.hasPrefix($0.loss) }) else {
            throw ModelError.malformed("dlib net with loss layer '\(lossName)': Sentio knows "
                + DlibArchitecture.known.map(\.loss).joined(separator: ", "))
        }
        var builder = Builder(architecture: architecture)
        return try builder.read(&reader, lossName: lossName)
    }

    struct Builder {
        let architecture: DlibArchitecture
        var tensors: [TensorInfo] = []
        var nodes: [Node] = []
        var current = 0
        var tags: [Int: Int] = [:]
        /// The previous token (for folding affine into con and relu into the node before).
        var previous: DlibArchitecture.Layer?
        /// The bottom layer's version (3 adds two fields to its training state).
        var bottomVersion = 2

        /// The input size planned for nets that take any size (the detector's image pyramid).
        var inputSize = (rows: 480, columns: 640)
        /// The detector's options and pyramid (MMOD nets).
        var mmod: MMODOptions?
        var pyramid: ImagePyramidInput?
        /// Output position → input position so far (dlib's `map_output_to_input`, composed from
        /// the bottom layer up): input = output · scale + offset.
        var outputToInput = (scale: 1, offset: 0)

        init(architecture: DlibArchitecture) {
            self.architecture = architecture
        }

        /// Reads the rest of the file; `r` stands after the loss layer's name, `lossName`.
        mutating func read(_ r: inout DlibReader, lossName: String) throws -> Graph {
            try readLoss(lossName, &r)
            // One version per layer, top down.
            let layers = architecture.layers
            for (depth, layer) in layers.reversed().enumerated() {
                r.context = "layer \(layers.count - depth) (\(layer)) version"
                let v = try r.integer()
                let bottom = depth == layers.count - 1
                let ok: Bool = layer.isMarker ? v == 1 : (bottom ? (v == 2 || v == 3) : (v == 1 || v == 2))
                guard ok else { throw r.fail("version \(v) does not fit a \(layer) layer here (architecture \(architecture.loss))") }
                if bottom { bottomVersion = Int(v) }
            }
            try readInput(&r)
            for (index, layer) in layers.enumerated() {
                r.context = "layer \(index + 1) (\(layer))"
                try readLayer(layer, &r)
                if !layer.isMarker { try skipState(&r, bottom: index == 0) }
                previous = layer
            }
            r.context = ""
            guard r.atEnd else { throw r.fail("\(r.bytes.count - r.offset) bytes after the last layer") }
            let graph = Graph(tensors: tensors, nodes: nodes, inputs: [0], outputs: [current], format: "dlib (\(architecture.loss))")
            try graph.validateIndices()
            return graph
        }

        mutating func readLoss(_ name: String, _ r: inout DlibReader) throws {
            r.context = "loss layer"
            let versions: Set<String> = architecture.loss == "loss_mmod" ? ["loss_mmod_"] : ["\(architecture.loss)_", "\(architecture.loss)_2"]
            guard versions.contains(name) else {
                throw r.fail("found '\(name)' where \(versions.sorted().map { "'\($0)'" }.joined(separator: " or ")) was expected")
            }
            switch architecture.loss {
            case "loss_mmod":
                let version = try r.integer(in: 1 ... 4, "mmod_options version")
                var windows: [MMODOptions.DetectorWindow] = []
                if version == 1 {
                    let width = try r.integer(in: 1 ... 1 << 16, "detector window width")
                    let height = try r.integer(in: 1 ... 1 << 16, "detector window height")
                    windows.append(.init(width: width, height: height, label: ""))
                } else {
                    for _ in 0 ..< (try r.count(max: 1024, "detector window")) {
                        let v = try r.integer(in: 1 ... 2, "detector window version")
                        let width = try r.integer(in: 1 ... 1 << 16, "detector window width")
                        let height = try r.integer(in: 1 ... 1 << 16, "detector window height")
                        windows.append(.init(width: width, height: height, label: v == 2 ? try r.string() : ""))
                    }
                }
                // Losses per false alarm and miss, truth IoU, then the NMS and ignore overlaps
                // (IoU, covered each).
                for _ in 0 ..< 3 { _ = try r.floatingPoint() }
                let nmsIoU = try r.floatingPoint(), nmsCovered = try r.floatingPoint()
                for _ in 0 ..< 2 { _ = try r.floatingPoint() }
                guard (0 ... 1).contains(nmsIoU), (0 ... 1).contains(nmsCovered) else {
                    throw r.fail("NMS thresholds \(nmsIoU), \(nmsCovered) outside 0…1")
                }
                if version >= 3 { _ = try r.byte() }
                var regression = false
                if version >= 4 { regression = try r.bool(); _ = try r.floatingPoint() }
                mmod = MMODOptions(windows: windows, nmsIoU: nmsIoU, nmsCovered: nmsCovered, usesBoundingBoxRegression: regression)
            default:
                if name.hasSuffix("_2") {
                    _ = try r.floatingPoint() // margin
                    _ = try r.floatingPoint() // distance threshold
                }
            }
        }

        mutating func readInput(_ r: inout DlibReader) throws {
            r.context = "input layer"
            let name = try r.expectString([architecture.input, architecture.input + "2"])
            let mean = try (0 ..< 3).map { _ in Float(try r.floatingPoint()) }
            let rows: Int, columns: Int
            if architecture.input == "input_rgb_image_pyramid" {
                // dlib's defaults before the paddings were saved (input_rgb_image_pyramid2).
                var padding = 10, outer = 11
                if name.hasSuffix("2") {
                    padding = try r.integer(in: 0 ... 1024, "pyramid padding")
                    outer = try r.integer(in: 0 ... 1024, "pyramid outer padding")
                }
                pyramid = ImagePyramidInput(mean: mean, padding: padding, outerPadding: outer,
                                            downsampling: architecture.pyramidDownsampling ?? 6)
                // Any size runs (the net is fully convolutional); the graph is planned for one.
                // dlib normalizes before tiling, so the graph starts from the normalized tiles.
                current = add(TensorInfo(name: "input", shape: [1, inputSize.rows, inputSize.columns, 3], type: .float32))
                return
            } else {
                rows = try r.integer(in: 1 ... 4096, "input rows")
                columns = try r.integer(in: 1 ... 4096, "input columns")
            }
            current = add(TensorInfo(name: "input", shape: [1, rows, columns, 3], type: .float32))
            // (pixel − mean) / 256, per channel, as dlib's input layer computes it.
            let offset = add(TensorInfo(name: "input_mean", shape: [3], type: .float32, constant: .float32(mean.map { -$0 })))
            let scale = add(TensorInfo(name: "input_scale", shape: [3], type: .float32, constant: .float32([1 / 256, 1 / 256, 1 / 256])))
            current = emit(.add(.none), [current, offset], shape: [1, rows, columns, 3], name: "input_centered")
            current = emit(.mul(.none), [current, scale], shape: [1, rows, columns, 3], name: "input_scaled")
        }

        /// The training state dlib writes after each layer's details.
        mutating func skipState(_ r: inout DlibReader, bottom: Bool) throws {
            for _ in 0 ..< 3 { _ = try r.bool() }
            _ = try r.tensor() // x_grad
            _ = try r.tensor() // cached_output
            if bottom {
                if bottomVersion == 3 {
                    _ = try r.tensor() // grad_final
                    _ = try r.integer() // sample expansion factor
                }
            } else {
                _ = try r.tensor() // params_grad
            }
        }

        mutating func add(_ t: TensorInfo) -> Int {
            tensors.append(t)
            return tensors.count - 1
        }

        mutating func emit(_ op: Operator, _ inputs: [Int], shape: [Int], name: String) -> Int {
            let out = add(TensorInfo(name: name, shape: shape, type: .float32))
            nodes.append(Node(operation: op, inputs: inputs, outputs: [out]))
            return out
        }

        var shape: [Int] { tensors[current].shape }

        mutating func readLayer(_ layer: DlibArchitecture.Layer, _ r: inout DlibReader) throws {
            switch layer {
            case .con: try readCon(&r)
            case .affine: try readAffine(&r)
            case .relu:
                let version = try r.expectString(["relu_", "relu_2"])
                let disabled = version == "relu_2" ? try r.bool() : false
                if !disabled { relu() }
            case .maxPool, .avgPool:
                let isMax = layer == .maxPool
                _ = try r.expectString([isMax ? "max_pool_2" : "avg_pool_2"])
                let kh = try r.integer(in: 0 ... 1024, "pool rows"), kw = try r.integer(in: 0 ... 1024, "pool columns")
                let sy = try r.integer(in: 1 ... 1024, "pool stride"), sx = try r.integer(in: 1 ... 1024, "pool stride")
                let py = try r.integer(in: 0 ... 1024, "pool padding"), px = try r.integer(in: 0 ... 1024, "pool padding")
                try pool(max: isMax, kh: kh, kw: kw, sy: sy, sx: sx, py: py, px: px, r)
            case let .addPrev(tag):
                _ = try r.expectString(["add_prev_"])
                guard let other = tags[tag] else { throw r.fail("add_prev\(tag) without a tag\(tag) below") }
                try addPrevious(other, r)
            case let .tag(n):
                tags[n] = current
            case let .skip(n):
                guard let t = tags[n] else { throw r.fail("skip\(n) without a tag\(n) below") }
                current = t
            case .fc: try readFC(&r)
            }
        }

        mutating func readCon(_ r: inout DlibReader) throws {
            let version = try r.expectString(["con_4", "con_5", "con_6"])
            let params = try r.tensor()
            let filters = try r.integer(in: 1 ... 65536, "num_filters")
            let kh = try r.integer(in: 1 ... 64, "filter rows"), kw = try r.integer(in: 1 ... 64, "filter columns")
            let sy = try r.integer(in: 1 ... 64, "stride_y"), sx = try r.integer(in: 1 ... 64, "stride_x")
            let py = try r.integer(in: 0 ... 64, "padding_y"), px = try r.integer(in: 0 ... 64, "padding_x")
            let filterShape = try r.aliasTensor(), biasShape = try r.aliasTensor()
            for _ in 0 ..< 4 { _ = try r.floatingPoint() } // learning-rate and weight-decay multipliers
            let useBias = version == "con_4" ? true : try r.bool()
            let useRelu = version == "con_6" ? try r.bool() : false
            let channels = shape[3]
            guard filterShape == [filters, channels, kh, kw] else {
                throw r.fail("filters \(filterShape) for \(filters) filters of \(kh)×\(kw) over \(channels) channels")
            }
            let weightCount = filters * channels * kh * kw
            let biasCount = useBias ? biasShape.reduce(1, *) : 0
            guard !useBias || biasCount == filters, params.values.count >= weightCount + biasCount else {
                throw r.fail("parameters of \(params.values.count) values for \(weightCount) weights and \(biasCount) biases")
            }
            // dlib stores filters [out][in][y][x]; the graph wants [out][y][x][in].
            var weights = [Float](repeating: 0, count: weightCount)
            params.values.withUnsafeBufferPointer { src in
                for o in 0 ..< filters {
                    for c in 0 ..< channels {
                        for y in 0 ..< kh {
                            for x in 0 ..< kw {
                                weights[((o * kh + y) * kw + x) * channels + c] = src[((o * channels + c) * kh + y) * kw + x]
                            }
                        }
                    }
                }
            }
            let bias = useBias ? Array(params.values[weightCount ..< weightCount + filters]) : [Float](repeating: 0, count: filters)
            guard sy == sx, py == px, kh == kw else { throw r.fail("\(kh)×\(kw) filters, stride \(sy)×\(sx), padding \(py)×\(px): these nets use square ones") }
            mapOutputToInput(stride: sy, padding: py, kernel: kh)
            let window = Window(strideH: sy, strideW: sx, filterH: kh, filterW: kw, padding: .explicit(top: py, bottom: py, left: px, right: px))
            let oh = window.vertical(input: shape[1], filter: kh).0, ow = window.horizontal(input: shape[2], filter: kw).0
            guard oh > 0, ow > 0 else { throw r.fail("a \(kh)×\(kw) convolution on a \(shape[1])×\(shape[2]) input has no output") }
            let n = tensors.count
            let f = add(TensorInfo(name: "con\(n)_filter", shape: [filters, kh, kw, channels], type: .float32, constant: .float32(weights)))
            let b = add(TensorInfo(name: "con\(n)_bias", shape: [filters], type: .float32, constant: .float32(bias)))
            current = emit(.conv2D(window, useRelu ? .relu : .none), [current, f, b], shape: [1, oh, ow, filters], name: "con\(n)")
        }

        /// dlib maps an output position p of a convolution or pool to p·stride − padding +
        /// kernel/2 of its input; layers are read from the bottom, so this one's map applies first.
        mutating func mapOutputToInput(stride: Int, padding: Int, kernel: Int) {
            outputToInput.offset += outputToInput.scale * (kernel / 2 - padding)
            outputToInput.scale *= stride
        }

        mutating func readAffine(_ r: inout DlibReader) throws {
            let version = try r.expectString(["affine_", "affine_2", "bn_con2"])
            let params = try r.tensor()
            let gammaShape = try r.aliasTensor(), betaShape = try r.aliasTensor()
            let channels = shape[3]
            guard gammaShape.reduce(1, *) == channels, betaShape.reduce(1, *) == channels, params.values.count >= 2 * channels else {
                throw r.fail("γ \(gammaShape) and β \(betaShape) for \(channels) channels")
            }
            var gamma = Array(params.values[0 ..< channels]), beta = Array(params.values[channels ..< 2 * channels])
            if version == "bn_con2" {
                // A batch norm saved with its statistics; dlib turns it into an affine layer on
                // load: γ' = γ / √(running variance + ε), β' = β − γ'·running mean.
                _ = try r.tensor() // means of the last batch
                _ = try r.tensor() // inverse deviations of the last batch
                let runningMeans = try r.tensor().values, runningVariances = try r.tensor().values
                _ = try r.integer() // updates
                _ = try r.integer() // running statistics window
                for _ in 0 ..< 4 { _ = try r.floatingPoint() }
                let eps = try r.floatingPoint()
                guard runningMeans.count == channels, runningVariances.count == channels, eps >= 0 else {
                    throw r.fail("batch norm statistics of \(runningMeans.count) and \(runningVariances.count) for \(channels) channels")
                }
                for c in 0 ..< channels {
                    let g = gamma[c] / Float((Double(runningVariances[c]) + eps).squareRoot())
                    (gamma[c], beta[c]) = (g, beta[c] - g * runningMeans[c])
                }
            } else {
                let mode = try r.integer(in: 0 ... 1, "affine mode")
                let disabled = version == "affine_2" ? try r.bool() : false
                if disabled { return }
                guard mode == 0 else { throw r.fail("affine in fully-connected mode is not supported") }
            }
            // Folded into the convolution that produced the input: w·γ, b·γ + β.
            guard previous == .con, let node = nodes.last, node.outputs == [current], case .conv2D(_, .none) = node.operation,
                  case var .float32(w)? = tensors[node.inputs[1]].constant,
                  case var .float32(b)? = tensors[node.inputs[2]].constant else {
                throw r.fail("affine must follow a convolution (the only place these nets put it)")
            }
            let perFilter = w.count / channels
            for o in 0 ..< channels {
                for i in 0 ..< perFilter { w[o * perFilter + i] *= gamma[o] }
                b[o] = b[o] * gamma[o] + beta[o]
            }
            tensors[node.inputs[1]].constant = .float32(w)
            tensors[node.inputs[2]].constant = .float32(b)
        }

        /// Fuses the ReLU into the node that produced the current tensor when nothing else
        /// reads that tensor (no tag between); otherwise adds a RELU node.
        mutating func relu() {
            if let previous, !previous.isMarker, let last = nodes.indices.last, nodes[last].outputs == [current] {
                switch nodes[last].operation {
                case let .conv2D(w, .none):
                    nodes[last].operation = .conv2D(w, .relu)
                    return
                case .add(.none):
                    nodes[last].operation = .add(.relu)
                    return
                default: break
                }
            }
            current = emit(.relu, [current], shape: shape, name: "relu\(tensors.count)")
        }

        mutating func pool(max isMax: Bool, kh: Int, kw: Int, sy: Int, sx: Int, py: Int, px: Int, _ r: DlibReader) throws {
            let s = shape
            if kh == 0 && kw == 0 {
                guard !isMax else { throw r.fail("global max pooling is not supported") }
                let axes = add(TensorInfo(name: "mean_axes", shape: [2], type: .int32, constant: .int32([1, 2])))
                current = emit(.mean(keepDims: true), [current, axes], shape: [1, 1, 1, s[3]], name: "avg_pool_everything")
                return
            }
            guard kh > 0, kw > 0 else { throw r.fail("pool window \(kh)×\(kw)") }
            // dlib's average pooling over padding is not what TFLite's does; these nets never pad it.
            guard isMax || (py == 0 && px == 0) else { throw r.fail("padded average pooling is not supported") }
            if sy == sx, py == px, kh == kw { mapOutputToInput(stride: sy, padding: py, kernel: kh) }
            let window = Window(strideH: sy, strideW: sx, filterH: kh, filterW: kw, padding: .explicit(top: py, bottom: py, left: px, right: px))
            let oh = window.vertical(input: s[1], filter: kh).0, ow = window.horizontal(input: s[2], filter: kw).0
            guard oh > 0, ow > 0 else { throw r.fail("a \(kh)×\(kw) pool on a \(s[1])×\(s[2]) input has no output") }
            let op: Operator = isMax ? .maxPool2D(window, .none) : .averagePool2D(window, .none)
            current = emit(op, [current], shape: [1, oh, ow, s[3]], name: isMax ? "max_pool\(tensors.count)" : "avg_pool\(tensors.count)")
        }

        /// dlib adds tensors of different sizes as if the smaller were padded with zeros.
        mutating func addPrevious(_ other: Int, _ r: DlibReader) throws {
            let a = shape, b = tensors[other].shape
            let target = zip(a, b).map { Swift.max($0, $1) }
            func padded(_ t: Int) -> Int {
                let s = tensors[t].shape
                guard s != target else { return t }
                var pads: [Int32] = []
                for (have, want) in zip(s, target) { pads += [0, Int32(want - have)] }
                let p = add(TensorInfo(name: "pad\(tensors.count)", shape: [4, 2], type: .int32, constant: .int32(pads)))
                return emit(.pad, [t, p], shape: target, name: "zero_extended\(tensors.count)")
            }
            let lhs = padded(current), rhs = padded(other)
            current = emit(.add(.none), [lhs, rhs], shape: target, name: "add_prev\(tensors.count)")
        }

        mutating func readFC(_ r: inout DlibReader) throws {
            let version = try r.expectString(["fc_2", "fc_3"])
            let outputs = try r.integer(in: 1 ... 1 << 20, "num_outputs")
            let inputs = try r.integer(in: 1 ... 1 << 24, "num_inputs")
            let params = try r.tensor()
            let weightShape = try r.aliasTensor(), biasShape = try r.aliasTensor()
            let biasMode = try r.integer(in: 0 ... 1, "fc bias mode") // 0: has bias, 1: no bias
            for _ in 0 ..< 4 { _ = try r.floatingPoint() }
            let biasFlag = version == "fc_3" ? try r.bool() : true
            let useBias = biasMode == 0 && biasFlag
            let s = shape
            let (h, w, c) = (s[1], s[2], s[3])
            guard inputs == h * w * c, weightShape.reduce(1, *) == inputs * outputs,
                  params.values.count >= inputs * outputs + (useBias ? outputs : 0),
                  !useBias || biasShape.reduce(1, *) == outputs else {
                throw r.fail("fc of \(inputs)→\(outputs) on an input of \(s)")
            }
            // dlib: out[o] = Σ_i x[i]·W[i][o], i over (channel, row, column); graph: [out][row, column, channel].
            var weights = [Float](repeating: 0, count: inputs * outputs)
            for ch in 0 ..< c {
                for y in 0 ..< h {
                    for x in 0 ..< w {
                        let i = (ch * h + y) * w + x, j = (y * w + x) * c + ch
                        for o in 0 ..< outputs { weights[o * inputs + j] = params.values[i * outputs + o] }
                    }
                }
            }
            let bias = useBias ? Array(params.values[inputs * outputs ..< inputs * outputs + outputs]) : [Float](repeating: 0, count: outputs)
            let n = tensors.count
            let wt = add(TensorInfo(name: "fc\(n)_weights", shape: [outputs, inputs], type: .float32, constant: .float32(weights)))
            let bt = add(TensorInfo(name: "fc\(n)_bias", shape: [outputs], type: .float32, constant: .float32(bias)))
            current = emit(.fullyConnected(.none, keepNumDims: false), [current, wt, bt], shape: [1, outputs], name: "fc\(n)")
        }
    }
}
