/// Expands a sparse constant (TFLite's TACO-style format: a traversal order over the dense
/// dimensions and optional block dimensions, each dense or compressed-sparse-row) into a dense
/// array. Every index read from the file is checked.
package enum Densify {
    package static func run(_ values: ConstantData, format: SparseFormat, shape: [Int], node: Int) throws -> ConstantData {
        switch values {
        case let .float32(v): return .float32(try expand(v, zero: 0, format: format, shape: shape, node: node))
        case let .float16(v): return .float16(try expand(v, zero: 0, format: format, shape: shape, node: node))
        case let .int32(v): return .int32(try expand(v, zero: 0, format: format, shape: shape, node: node))
        case let .int8(v): return .int8(try expand(v, zero: 0, format: format, shape: shape, node: node))
        case let .uint8(v): return .uint8(try expand(v, zero: 0, format: format, shape: shape, node: node))
        }
    }

    static func expand<T>(_ values: [T], zero: T, format: SparseFormat, shape: [Int], node: Int) throws -> [T] {
        let rank = shape.count
        let levels = format.traversalOrder.count
        func fail(_ why: String) -> ModelError { .invalidGraph("node \(node) DENSIFY: \(why)") }
        guard format.dimensions.count == levels, levels >= rank, format.blockMap.count == levels - rank else {
            throw fail("\(levels) traversal levels, \(format.dimensions.count) dimension records, \(format.blockMap.count) block maps for rank \(rank)")
        }
        guard Set(format.traversalOrder.prefix(rank)) == Set(0 ..< rank),
              Set(format.traversalOrder.dropFirst(rank)) == Set(rank ..< levels),
              format.blockMap.allSatisfy({ $0 >= 0 && $0 < rank })
        else { throw fail("traversal order \(format.traversalOrder) / block map \(format.blockMap) is not a permutation") }

        // Block sizes come from the dense block dimensions.
        var blockSize = [Int](repeating: 1, count: levels - rank)
        for (level, dim) in format.traversalOrder.enumerated() where dim >= rank {
            guard case let .dense(size) = format.dimensions[level], size > 0 else { throw fail("block dimension \(dim) is not dense") }
            blockSize[dim - rank] = size
        }
        let total = shape.reduce(1, *)
        var dense = [T](repeating: zero, count: total)
        var strides = [Int](repeating: 1, count: rank)
        for axis in stride(from: rank - 2, through: 0, by: -1) { strides[axis] = strides[axis + 1] * shape[axis + 1] }

        var indices = [Int](repeating: 0, count: levels)
        var next = 0
        func place() throws {
            var coordinate = [Int](repeating: 0, count: rank)
            for level in 0 ..< rank { coordinate[format.traversalOrder[level]] = indices[level] }
            for level in rank ..< levels {
                let block = format.traversalOrder[level] - rank
                let dim = format.blockMap[block]
                coordinate[dim] = coordinate[dim] * blockSize[block] + indices[level]
            }
            var flat = 0
            for axis in 0 ..< rank {
                guard coordinate[axis] >= 0, coordinate[axis] < shape[axis] else { throw fail("index \(coordinate) outside \(shape)") }
                flat += coordinate[axis] * strides[axis]
            }
            guard next < values.count else { throw fail("more positions than the \(values.count) stored values") }
            dense[flat] = values[next]
            next += 1
        }
        func visit(_ level: Int, _ parent: Int) throws {
            if level == levels { return try place() }
            switch format.dimensions[level] {
            case let .dense(size):
                guard size >= 0, size <= 1 << 24 else { throw fail("dense size \(size)") }
                for i in 0 ..< size {
                    indices[level] = i
                    try visit(level + 1, parent * size + i)
                }
            case let .compressed(segments, positions):
                guard parent + 1 < segments.count else { throw fail("segment \(parent) of \(segments.count - 1)") }
                let lo = segments[parent], hi = segments[parent + 1]
                guard lo >= 0, lo <= hi, hi <= positions.count else { throw fail("segment bounds \(lo)…\(hi) of \(positions.count)") }
                for i in lo ..< hi {
                    indices[level] = positions[i]
                    try visit(level + 1, i)
                }
            }
        }
        try visit(0, 0)
        guard next == values.count else { throw fail("\(values.count) values stored, \(next) placed") }
        return dense
    }
}
