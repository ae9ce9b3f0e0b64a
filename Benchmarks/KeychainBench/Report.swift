import Foundation

/// Prints the table and writes the JSON file.
enum Report {
    static func printTable(_ rows: [ResultRow]) {
        guard let items = rows.first?.items else { return }
        print("\n== \(items) items")
        let header = ["operation", "median µs", "p99 µs", "ops/s", "floor µs", "ratio", "note"]
        var lines = [header]
        for row in rows {
            lines.append([
                row.operation, format(row.medianMicroseconds), format(row.p99Microseconds),
                format(row.throughputPerSecond), row.floorMedianMicroseconds.map(format) ?? "",
                row.ratio.map { String(format: "%.2f", $0) } ?? "", row.note ?? "",
            ])
        }
        let widths = (0..<header.count).map { column in lines.map { $0[column].count }.max() ?? 0 }
        for line in lines {
            print(zip(line, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }
    }

    static func writeJSON(_ rows: [ResultRow], to path: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let data = try? encoder.encode(rows) else { return }
        if !FileManager.default.createFile(atPath: path, contents: data) { log("could not write \(path)") }
    }

    private static func format(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        if value >= 100 { return String(format: "%.0f", value) }
        return String(format: "%.1f", value)
    }
}
