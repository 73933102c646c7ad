import ArgumentParser
import Foundation
import SentioImage

extension ImageCommand {
    /// What `make run` shows until the perception commands exist: SentioImage's stages on a
    /// real photo, drawn into one annotated PNG.
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Colour grid (mean colour, L*, largest ΔE2000 edge) and a rotated crop, drawn on a photo.")

        @Argument(help: "Input PNG or JPEG.") var input: String
        @Argument(help: "Annotated output PNG.") var output: String
        @Option(help: "Grid cells per side.") var grid = 4
        @Flag(help: "Print the grid as JSON.") var json = false
        @Option(help: "Run the whole demo N times in one process and print median/min/max ms.")
        var bench: Int?

        struct Cell: Encodable {
            let row: Int, column: Int
            let meanRGB: [Int]
            let lightness: Double
        }

        struct Report: Encodable {
            let width: Int, height: Int
            let cells: [Cell]
            let largestDeltaE2000: Double
            let output: String
        }

        func run() throws {
            guard (1 ... 16).contains(grid) else { throw ValidationError("--grid takes 1…16") }
            if let bench {
                guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
                try Bench.report(bench) { _ = try render() }
                return
            }
            let report = try render()
            if json {
                try JSONOutput.print(report)
            } else {
                print("\(input): \(report.width)×\(report.height), \(grid)×\(grid) cells, "
                    + "largest neighbouring ΔE2000 \(String(format: "%.2f", report.largestDeltaE2000)); wrote \(output)")
            }
        }

        func render() throws -> Report {
            let photo = try ImageIO.read(input)
            var canvas = photo.converted(to: .rgb8)
            let cw = photo.width / grid, ch = photo.height / grid
            guard cw > 0, ch > 0 else { throw ValidationError("the image is too small for a \(grid)×\(grid) grid") }

            var labs: [[Lab]] = []
            var cells: [Cell] = []
            for row in 0 ..< grid {
                var labRow: [Lab] = []
                for column in 0 ..< grid {
                    let rect = PixelRect(x: column * cw, y: row * ch, width: cw, height: ch)
                    let mean = try photo.meanColor(in: rect)
                    let rgba = mean.rgba
                    labRow.append(mean.lab)
                    cells.append(Cell(row: row, column: column, meanRGB: [Int(rgba.r), Int(rgba.g), Int(rgba.b)],
                                      lightness: (mean.lab.l * 100).rounded() / 100))
                    canvas.drawRectangle(rect, color: RGBA(255, 255, 255, 160))
                    // A swatch of the cell's mean colour, its size growing with lightness L*.
                    let side = max(4, Int(Double(min(cw, ch)) * (0.15 + 0.25 * mean.lab.l / 100)))
                    let swatch = PixelRect(x: rect.x + 4, y: rect.y + 4, width: side, height: side)
                    canvas.fill(swatch, with: rgba)
                    canvas.drawRectangle(swatch, color: .black)
                }
                labs.append(labRow)
            }

            // The neighbouring pair of cells whose colours differ most (ΔE2000).
            var best = (delta: -1.0, a: (0, 0), b: (0, 0))
            for r in 0 ..< grid {
                for c in 0 ..< grid {
                    for (dr, dc) in [(0, 1), (1, 0)] where r + dr < grid && c + dc < grid {
                        let d = DeltaE.ciede2000(labs[r][c], labs[r + dr][c + dc])
                        if d > best.delta { best = (d, (r, c), (r + dr, c + dc)) }
                    }
                }
            }
            func centre(_ cell: (Int, Int)) -> Point {
                Point(Double(cell.1 * cw + cw / 2), Double(cell.0 * ch + ch / 2))
            }
            if grid > 1 {
                canvas.drawLine(from: centre(best.a), to: centre(best.b), color: .yellow, thickness: 4)
            }

            // A rotated region around the centre, turned upright by an affine warp and inset.
            let region = RotatedRect(center: Point(Double(photo.width) / 2, Double(photo.height) / 2),
                                     width: Double(photo.width) / 3, height: Double(photo.height) / 3,
                                     rotation: .pi / 6)
            let insetSize = Size(width: max(8, photo.width / 4), height: max(8, photo.height / 4))
            let (inset, _) = try canvas.cropped(to: region, size: insetSize)
            canvas.drawRotatedRect(region, color: .cyan, thickness: 3)
            canvas.paste(inset, at: (photo.width - insetSize.width - 8, photo.height - insetSize.height - 8))
            canvas.drawRectangle(PixelRect(x: photo.width - insetSize.width - 8, y: photo.height - insetSize.height - 8,
                                           width: insetSize.width, height: insetSize.height),
                                 color: .cyan, thickness: 2)
            try ImageIO.write(canvas, to: output)
            return Report(width: photo.width, height: photo.height, cells: cells,
                          largestDeltaE2000: (max(0, best.delta) * 1e4).rounded() / 1e4, output: output)
        }
    }
}
