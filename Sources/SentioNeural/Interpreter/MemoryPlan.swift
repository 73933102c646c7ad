/// Static memory plan: every non-constant tensor gets an offset in one arena, and tensors whose
/// lifetimes (first write to last read, in node order) do not overlap share memory.
package struct MemoryPlan {
    /// Offset in floats of each planned tensor.
    package var offsets: [Int: Int] = [:]
    /// Arena size in floats.
    package var size = 0

    /// Floats are placed on 64-byte boundaries (16 floats) for aligned SIMD loads.
    static let alignment = 16

    package init(sizes: [Int: Int], lifetimes: [Int: ClosedRange<Int>]) {
        // Largest first, each at the lowest offset free during its lifetime (greedy by size,
        // as TFLite's arena planner does).
        let order = sizes.keys.sorted { (sizes[$0]!, -$0) > (sizes[$1]!, -$1) }
        var placed: [(offset: Int, size: Int, life: ClosedRange<Int>)] = []
        for t in order {
            let need = (sizes[t]! + MemoryPlan.alignment - 1) / MemoryPlan.alignment * MemoryPlan.alignment
            let life = lifetimes[t]!
            let conflicts = placed.filter { $0.life.overlaps(life) }.sorted { $0.offset < $1.offset }
            var candidate = 0
            for c in conflicts {
                if candidate + need <= c.offset { break }
                candidate = max(candidate, c.offset + c.size)
            }
            placed.append((candidate, need, life))
            offsets[t] = candidate
            size = max(size, candidate + need)
        }
    }
}
