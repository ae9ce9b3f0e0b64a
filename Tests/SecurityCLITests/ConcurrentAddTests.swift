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

/// Several `security` processes upserting (`-U`) one item at once, with others deleting it.
@Suite struct ConcurrentUpsertTests {
    @Test("concurrent -U adds of one generic password all succeed, never errSecDuplicateItem", arguments: 0..<4)
    func concurrentGenericUpsertsAllSucceed(round: Int) throws {
        try upsertRace(["add-generic-password", "-U", "-a", "racer", "-s", "race"], deletes: [])
    }

    @Test("concurrent -U adds of one internet password all succeed, never errSecDuplicateItem")
    func concurrentInternetUpsertsAllSucceed() throws {
        try upsertRace(["add-internet-password", "-U", "-a", "racer", "-s", "race.example", "-r", "htps"], deletes: [])
    }

    @Test("-U adds racing with deletes of the item all succeed")
    func upsertsRacingDeletesAllSucceed() throws {
        try upsertRace(
            ["add-generic-password", "-U", "-a", "racer", "-s", "race"],
            deletes: ["delete-generic-password", "-a", "racer", "-s", "race"])
    }

    /// Starts 16 upserts of one item (each with its own password) and, when `deletes` is not
    /// empty, 8 deletes of it between them, all at once; every upsert must succeed, and the item,
    /// if present, holds one of the passwords.
    private func upsertRace(_ upsert: [String], deletes: [String]) throws {
        let tool = try SecurityBinary()
        #expect(try tool.run("add-generic-password", "-a", "warm-up", "-s", "warm-up").status == 0)
        let count = 16
        var upserts: [RunningTool] = []
        var deleting: [RunningTool] = []
        for index in 0..<count {
            upserts.append(try tool.start(upsert + ["-w", "password-\(index)"]))
            if !deletes.isEmpty && index % 2 == 0 { deleting.append(try tool.start(deletes)) }
        }
        let upsertRuns = try upserts.map { try $0.finish() }
        let deleteRuns = try deleting.map { try $0.finish() }
        for run in upsertRuns {
            #expect(run.status == 0, "an upsert exited \(run.status): \(run.error)")
        }
        for run in deleteRuns {
            #expect([0, 44].contains(run.status), "a delete exited \(run.status): \(run.error)")
        }
        let find = try tool.run(arguments: ["find" + upsert[0].dropFirst(3)] + upsert.dropFirst(2) + ["-w"])
        if deletes.isEmpty || find.status == 0 {
            #expect(find.status == 0)
            #expect((0..<count).map { "password-\($0)\n" }.contains(find.output), "\(find.output)")
        } else {
            #expect(find.status == 44)
        }
    }
}
