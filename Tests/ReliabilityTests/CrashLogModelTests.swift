import Testing

/// The crash test's checker must reject what it exists to catch (so the crash test can fail).
@Suite("Crash log model")
struct CrashLogModelTests {
    private func state(_ items: [String: String], rows: Int? = nil, torn: Bool = false) throws -> KeychainState {
        var text = "open 0\nintegrity ok\nrows \(rows ?? items.count)\n"
        for (account, label) in items { text += "item \(account) \(label) \(torn ? "torn" : "ok")\n" }
        return try KeychainState(parsing: text + "decrypted \(items.count)\nend\n")
    }

    @Test("an acknowledged add missing after a kill is reported")
    func lostAcknowledgedAdd() throws {
        var model = CrashLogModel()
        try model.check(state: state([:]))
        try model.replay(log: "B 0 add a t1\nA 0\n")
        #expect(throws: StateError.self) { try model.check(state: state([:])) }
    }

    @Test("the operation in flight at a kill may or may not have happened, and nothing else may differ")
    func inFlightOperation() throws {
        var applied = CrashLogModel()
        try applied.replay(log: "B 0 add a t1\nA 0\nB 1 update a t2\n")
        try applied.check(state: state(["a": "t2"]))
        var lost = CrashLogModel()
        try lost.replay(log: "B 0 add a t1\nA 0\nB 1 update a t2\n")
        try lost.check(state: state(["a": "t1"]))
        var other = CrashLogModel()
        try other.replay(log: "B 0 add a t1\nA 0\nB 1 update a t2\n")
        #expect(throws: StateError.self) { try other.check(state: state(["a": "t3"])) }
    }

    @Test("an outcome the acknowledged log rules out is reported")
    func impossibleOutcome() throws {
        var model = CrashLogModel()
        #expect(throws: StateError.self) { try model.replay(log: "B 0 update a t1\nA 0\n") }
        var duplicate = CrashLogModel()
        #expect(throws: StateError.self) { try duplicate.replay(log: "B 0 add a t1\nR 0 -25299\n") }
        var unexpected = CrashLogModel()
        #expect(throws: StateError.self) { try unexpected.replay(log: "B 0 add a t1\nR 0 -25291\n") }
    }

    @Test("a read that returns another value, or a torn one, is reported")
    func wrongRead() throws {
        var model = CrashLogModel()
        try model.replay(log: "B 0 add a t1\nA 0\nB 1 read a -\nV 1 t1 ok\n")
        #expect(throws: StateError.self) { try model.replay(log: "B 2 read a -\nV 2 t0 ok\n") }
        var torn = CrashLogModel()
        try torn.replay(log: "B 0 add a t1\nA 0\n")
        #expect(throws: StateError.self) { try torn.replay(log: "B 1 read a -\nV 1 t1 torn\n") }
    }

    @Test("a torn item, an undecryptable row or a failed integrity check is reported")
    func unsoundState() throws {
        var model = CrashLogModel()
        #expect(throws: StateError.self) { try model.check(state: state(["a": "t1"], torn: true)) }
        #expect(throws: StateError.self) { try model.check(state: state([:], rows: 1)) }
        let corrupt = try KeychainState(parsing: "open 0\nintegrity *** in database main ***\nrows 0\ndecrypted 0\nend\n")
        #expect(throws: StateError.self) { try model.check(state: corrupt) }
    }
}
