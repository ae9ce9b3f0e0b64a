import Foundation
import Testing

/// `add-*-password -A flags`: items with access control through the built binary, the passcode
/// asked through the scripted pinentry (`Tests/TestDoubles/pinentry-double`) when `find -w`
/// reads them (the keychain's own password, which unlocks it in a new process, is typed on
/// standard input as before).
@Suite struct AccessControlOptionTests {
    let tool: SecurityBinary
    init() throws {
        tool = try SecurityBinary()
        #expect(try tool.run("create-keychain", "-p", "2580", "k").status == 0)
    }

    static let pinentry: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("TestDoubles/pinentry-double").path
    }()

    /// The environment choosing the scripted pinentry, answering as `mode` says, logging to `log`.
    func prompting(_ mode: String, pin: String = "", log: String) -> [String: String] {
        [
            "KEYCHAIN_PINENTRY": Self.pinentry, "KEYCHAIN_PINENTRY_TIMEOUT": "30", "PINENTRY_DOUBLE_MODE": mode,
            "PINENTRY_DOUBLE_PIN": pin, "PINENTRY_DOUBLE_LOG": log,
        ]
    }

    func prompts(_ log: String) -> Int {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0 == "GETPIN" }.count
    }

    @Test func findWithAPasscodeItemAsksThroughPinentry() throws {
        let add = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw", "-A", "devicePasscode", "k", input: "2580\n")
        #expect(add.status == 0)
        let log = tool.home + "/pinentry.log"
        let found = try tool.start(["find-generic-password", "-a", "me", "-w", "k"], input: "2580\n", environment: prompting("pin", pin: "2580", log: log)).finish()
        #expect(found.status == 0, "\(found.error)")
        #expect(found.output == "pw\n")
        #expect(prompts(log) == 1)
        let cancelled = try tool.start(["find-generic-password", "-a", "me", "-w", "k"], input: "2580\n", environment: prompting("cancel", log: log)).finish()
        #expect(cancelled.status == 128)
        #expect(cancelled.output == "")
        let wrong = try tool.start(["find-generic-password", "-a", "me", "-w", "k"], input: "2580\n", environment: prompting("pin", pin: "0000", log: log)).finish()
        #expect(wrong.status == 51)
        // Attributes alone need nothing.
        let attributes = try tool.start(["find-generic-password", "-a", "me", "k"], input: "2580\n", environment: prompting("cancel", log: log)).finish()
        #expect(attributes.status == 0)
        #expect(prompts(log) == 5)
    }

    @Test func theExpressionGrammar() throws {
        let either = try tool.run("add-generic-password", "-a", "or", "-s", "svc", "-w", "pw", "-A", "biometryCurrentSet|devicePasscode", "k", input: "2580\n")
        #expect(either.status == 0)
        let both = try tool.run("add-generic-password", "-a", "and", "-s", "svc", "-w", "pw", "-A", "biometryAny,devicePasscode", "k", input: "2580\n")
        #expect(both.status == 0)
        // No biometry here: the and-ed item cannot open, whatever is typed; no prompt is shown.
        let log = tool.home + "/pinentry.log"
        let and = try tool.start(["find-generic-password", "-a", "and", "-w", "k"], input: "2580\n", environment: prompting("pin", pin: "2580", log: log)).finish()
        #expect(and.status == 51)
        let or = try tool.start(["find-generic-password", "-a", "or", "-w", "k"], input: "2580\n", environment: prompting("pin", pin: "2580", log: log)).finish()
        #expect(or.output == "pw\n")
        #expect(prompts(log) == 1)

        let mixed = try tool.run("add-generic-password", "-a", "x", "-s", "svc", "-w", "pw", "-A", "biometryAny|devicePasscode,watch", "k")
        #expect(mixed.status == 2)
        #expect(mixed.error.contains("not both"))
        let invalid = try tool.run("add-generic-password", "-a", "x", "-s", "svc", "-w", "pw", "-A", "userPresence|biometryAny", "k")
        #expect(invalid.status == 2)
        #expect(invalid.error.contains("userPresence"))
    }

    @Test func applicationPasswordIsAskedWhenAddingAndReading() throws {
        let log = tool.home + "/pinentry.log"
        let add = try tool.start(["add-generic-password", "-a", "app", "-s", "svc", "-w", "pw", "-A", "applicationPassword", "k"],
            input: "2580\n", environment: prompting("pin", pin: "hunter2", log: log)).finish()
        #expect(add.status == 0)
        let right = try tool.start(["find-generic-password", "-a", "app", "-w", "k"], input: "2580\n", environment: prompting("pin", pin: "hunter2", log: log)).finish()
        #expect(right.output == "pw\n")
        let wrong = try tool.start(["find-generic-password", "-a", "app", "-w", "k"], input: "2580\n", environment: prompting("pin", pin: "hunter3", log: log)).finish()
        #expect(wrong.status == 51)
        #expect(wrong.output == "")
    }
}
