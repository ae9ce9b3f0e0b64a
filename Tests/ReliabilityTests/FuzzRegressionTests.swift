import Foundation
import Testing

/// Every fuzz input kept in the repository (the seeds and each crash a fuzzer found) replays
/// through its target on every `swift test` (docs/reliability.md §3).
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let inputs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzInputs")

    @Test("every stored fuzz input runs through its target without a failure", arguments: FuzzTarget.allCases)
    func storedInputs(target: FuzzTarget) throws {
        let directory = Self.inputs.appendingPathComponent(target.rawValue)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(!files.isEmpty, "no inputs in \(directory.path)")
        for file in files {
            let data = try Data(contentsOf: directory.appendingPathComponent(file))
            #expect(throws: Never.self, "\(target.rawValue)/\(file)") { try target.run(data) }
        }
    }
}
