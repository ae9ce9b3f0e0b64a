import Foundation
import Testing

/// Several `security` processes adding the same item at once, on a keychain none has created yet.
@Suite struct ConcurrentAddTests {
    @Test func exactlyOneOfManyConcurrentAddsSucceeds() throws {
        let tool = try SecurityBinary()
        let count = 12
        let running = try (0..<count).map { index in
            try tool.start(["add-generic-password", "-a", "racer", "-s", "race", "-w", "password-\(index)"])
        }
        let runs = try running.map { try $0.finish() }

        let winners = runs.indices.filter { runs[$0].status == 0 }
        #expect(winners.count == 1)
        #expect(
            runs.filter { $0.status == 45 }.count == count - 1,
            "statuses and errors: \(runs.map { "\($0.status) \($0.error)" })")
        for run in runs where run.status == 45 {
            #expect(
                run.error
                    == "security: SecKeychainItemCreateFromContent (<default>): The specified item already exists in the keychain.\n")
        }
        let winner = try #require(winners.first)
        let find = try tool.run("find-generic-password", "-a", "racer", "-s", "race", "-w")
        #expect(find.output == "password-\(winner)\n")
    }
}
