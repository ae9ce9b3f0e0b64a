import Foundation
import Testing

/// Passwords, locks and the prompts a locked keychain brings, through the built binary.
@Suite struct LockAndPasswordTests {
    let tool: SecurityBinary
    init() throws {
        tool = try SecurityBinary()
        #expect(try tool.run("create-keychain", "-p", "1234", "k").status == 0)
    }

    /// Adds one generic password per accessibility to `k` (service = the accessibility code).
    func addOnePerClass() throws {
        for code in ["ak", "ck", "dk", "aku", "cku", "dku", "akpu"] {
            #expect(try tool.run("add-generic-password", "-a", "me", "-s", code, "-e", code, "-w", "secret-\(code)", "k", input: "1234\n").status == 0)
        }
    }

    @Test func unlockKeychainChecksThePassword() throws {
        let wrong = try tool.run("unlock-keychain", "-p", "nope", "k")
        #expect(wrong.status == 51)
        #expect(wrong.error == "security: SecKeychainUnlock k: The user name or passphrase you entered is not correct.\n")
        #expect(try tool.run("unlock-keychain", "-p", "1234", "k").status == 0)
        let prompted = try tool.run("unlock-keychain", "k", input: "1234\n")
        #expect(prompted.status == 0)
        #expect(prompted.error == "password to unlock k: ")
        #expect(try tool.run("unlock-keychain", "k", input: "").status == 1)
        #expect(try tool.run("unlock-keychain", "-p", "x", "missing").status == 50)
    }

    @Test func repeatedWrongPasswordsImposeADelayThatSurvivesTheProcess() throws {
        for attempt in 1...4 {
            #expect(try tool.run("unlock-keychain", "-p", "bad-\(attempt)", "k").error.hasSuffix("not correct.\n"))
        }
        let fifth = try tool.run("unlock-keychain", "-p", "bad-5", "k")
        #expect(fifth.status == 51)
        #expect(fifth.error.hasSuffix("security: too many failed attempts; try again in 60 seconds\n"))
        let right = try tool.run("unlock-keychain", "-p", "1234", "k")
        #expect(right.status == 51)
        #expect(right.error.contains("try again in "))
    }

    @Test func eachClassIsReadableAsDataProtectionSays() throws {
        try addOnePerClass()
        // A new process starts before the first unlock: without a password only class D reads.
        tool.startsLocked()
        for code in ["ak", "ck", "aku", "cku", "akpu"] {
            let run = try tool.run("find-generic-password", "-a", "me", "-s", code, "-w", "k", input: "")
            #expect(run.status == 36, "\(code)")
            #expect(run.error == "password to unlock k: security: SecKeychainSearchCopyNext: User interaction is not allowed.\n")
        }
        for code in ["dk", "dku"] {
            let run = try tool.run("find-generic-password", "-a", "me", "-s", code, "-w", "k", input: "")
            #expect(run.output == "secret-\(code)\n")
            #expect(run.error.isEmpty)
        }
        // With the password on the prompt every class reads; a wrong one is errSecAuthFailed.
        #expect(try tool.run("find-generic-password", "-a", "me", "-s", "ak", "-w", "k", input: "1234\n").output == "secret-ak\n")
        tool.startsLocked()
        #expect(try tool.run("find-generic-password", "-a", "me", "-s", "ak", "-w", "k", input: "4321\n").status == 51)
    }

    @Test func lockAndUnlockLastForTheInteractiveSession() throws {
        try addOnePerClass()
        // Commands come from a pipe: a locked item is errSecInteractionNotAllowed without a
        // prompt, which would read the next command as the password.
        let session = try tool.run(
            "-i",
            input: """
                unlock-keychain -p 1234 k
                find-generic-password -a me -s ak -w k
                find-generic-password -a me -s akpu -w k
                lock-keychain k
                find-generic-password -a me -s ck -w k
                find-generic-password -a me -s ak -w k
                find-generic-password -a me -s dk -w k
                unlock-keychain -p 1234 k
                find-generic-password -a me -s aku -w k

                """)
        #expect(session.output == "secret-ak\nsecret-akpu\nsecret-ck\nsecret-dk\nsecret-aku\n")
        #expect(session.error == "security: SecKeychainSearchCopyNext: User interaction is not allowed.\nfind-generic-password: returned -25308\n")
    }

    @Test func aLockedKeychainAsksForItsPasswordOnATerminal() throws {
        try addOnePerClass()
        tool.startsLocked()
        let terminal = try PseudoTerminal()
        let running = try terminal.start(
            SecurityBinary.executableURL, ["find-generic-password", "-a", "me", "-s", "ak", "-w", "k"], home: tool.home,
            environment: tool.environment)
        var transcript = try terminal.read(until: "password to unlock k: ")
        terminal.write("1234\n")
        #expect(running.wait() == 0)
        transcript += terminal.readAvailable()
        #expect(transcript.contains("secret-ak"))
        #expect(!transcript.contains("1234"))
    }

    @Test func setKeychainPasswordChangesAndRemovesThePassword() throws {
        try addOnePerClass()
        let wrong = try tool.run("set-keychain-password", "-o", "bad", "-p", "5678", "k")
        #expect(wrong.status == 51)
        #expect(wrong.error == "security: error changing password for \"k\": The user name or passphrase you entered is not correct.\n")
        let prompted = try tool.run("set-keychain-password", "k", input: "1234\n5678\n5678\n")
        #expect(prompted.status == 0)
        #expect(prompted.error == "Old Password: New Password: Retype New Password: ")
        #expect(try tool.run("unlock-keychain", "-p", "1234", "k").status == 51)
        #expect(try tool.run("unlock-keychain", "-p", "5678", "k").status == 0)
        let mismatch = try tool.run("set-keychain-password", "k", input: "5678\nabc\nabd\n")
        #expect(mismatch.status == 1)
        #expect(mismatch.error.hasSuffix("security: try again\n"))
        // Removing the password deletes the items that require one; the others need no prompt any more.
        let removed = try tool.run("set-keychain-password", "-o", "5678", "-p", "", "k")
        #expect(removed.status == 0)
        #expect(removed.error.contains("1 item that required the keychain password"))
        #expect(try tool.run("find-generic-password", "-a", "me", "-s", "akpu", "k", input: "").status == 44)
        #expect(try tool.run("find-generic-password", "-a", "me", "-s", "ak", "-w", "k", input: "").output == "secret-ak\n")
    }

    @Test func noPasswordEverComesFromTheEnvironment() throws {
        try addOnePerClass()
        tool.startsLocked()
        let running = try tool.start(
            ["find-generic-password", "-a", "me", "-s", "ak", "-w", "k"], input: "",
            environment: ["PASSWORD": "1234", "KEYCHAIN_PASSWORD": "1234", "SECURITY_PASSWORD": "1234"])
        #expect(try running.finish().status == 36)
    }
}
