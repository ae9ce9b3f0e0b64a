import Foundation

/// Latency samples of one measured operation.
struct Samples {
    private(set) var nanoseconds: [UInt64] = []
    private(set) var wallNanoseconds: UInt64 = 0

    /// Times `body` once and records it.
    mutating func measure(_ body: () throws -> Void) rethrows {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        nanoseconds.append(elapsed)
        wallNanoseconds += elapsed
    }

    /// Adds samples measured elsewhere (threads, worker processes).
    mutating func merge(_ values: [UInt64], wall: UInt64) {
        nanoseconds += values
        wallNanoseconds = max(wallNanoseconds, wall)
    }

    mutating func setWall(_ wall: UInt64) { wallNanoseconds = wall }

    /// Records one sample measured elsewhere.
    mutating func add(_ value: UInt64) {
        nanoseconds.append(value)
        wallNanoseconds += value
    }

    /// The samples in the order measured.
    var nanosecondsList: [UInt64] { nanoseconds }

    var count: Int { nanoseconds.count }

    /// The value at quantile `q` (0…1) in microseconds.
    func quantile(_ q: Double) -> Double {
        guard !nanoseconds.isEmpty else { return .nan }
        let sorted = nanoseconds.sorted()
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))
        return Double(sorted[index]) / 1000
    }

    var median: Double { quantile(0.5) }
    var p99: Double { quantile(0.99) }

    /// Operations per second over the wall time of the run.
    var throughput: Double {
        wallNanoseconds == 0 ? .nan : Double(count) / (Double(wallNanoseconds) / 1e9)
    }
}

/// One row of the report.
struct ResultRow: Codable {
    var operation: String
    var items: Int
    var samples: Int
    var medianMicroseconds: Double
    var p99Microseconds: Double
    var throughputPerSecond: Double
    var floorName: String?
    var floorMedianMicroseconds: Double?
    var ratio: Double?
    var note: String?

    init(_ operation: String, items: Int, samples: Samples, floor: (String, Samples)? = nil, note: String? = nil) {
        self.operation = operation
        self.items = items
        self.samples = samples.count
        medianMicroseconds = samples.median
        p99Microseconds = samples.p99
        throughputPerSecond = samples.throughput
        if let floor {
            floorName = floor.0
            floorMedianMicroseconds = floor.1.median
            ratio = samples.median / floor.1.median
        }
        self.note = note
    }

    /// A row that reports a single figure (sizes, memory, open time).
    init(figure operation: String, items: Int, value: Double, unit: String, floor: (String, Double)? = nil) {
        self.operation = operation
        self.items = items
        samples = 1
        medianMicroseconds = value
        p99Microseconds = value
        throughputPerSecond = .nan
        if let floor {
            floorName = floor.0
            floorMedianMicroseconds = floor.1
            ratio = value / floor.1
        }
        note = unit
    }
}
