import Foundation
import KeychainAuthentication
import KeychainCrypto
import Testing

@Suite("Asking through a scripted pinentry")
struct PinentryPrompterTests {
    private let request = PinentryRequest.passcode(reason: "sign in to the mail server", caller: "mail-client")

    private func bytes(_ secret: SecureBytes) -> [UInt8] { secret.withUnsafeBytes { Array($0) } }

    @Test("An entered PIN comes back unescaped; the program got the terminal, the reason and the caller's name")
    func entered() throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let outcome = PinentryPrompter.ask(request, environment: double.environment(.pin, pin: "12%2534", terminal: "/dev/pts/42"))
        guard case .entered(let secret) = outcome else {
            Issue.record("expected a PIN, got \(outcome)")
            return
        }
        #expect(bytes(secret) == Array("12%34".utf8))
        let lines = try #require(double.receivedLines())
        #expect(lines.contains("OPTION ttyname=/dev/pts/42"))
        let description = try #require(lines.first { $0.hasPrefix("SETDESC ") })
        #expect(description.contains("mail-client"))
        #expect(description.contains("sign in to the mail server"))
        #expect(description.contains("%0A"))
        #expect(lines.contains("GETPIN"))
        #expect(lines.last == "BYE")
    }

    @Test("The pinentry program holds none of its caller's descriptors, even a caller with 1 200 open")
    func programInheritsNoDescriptor() throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let listing = directory.path + "/descriptors"
        let base = double.environment(.pin, pin: "1234")
        var variables = base.variables
        variables["PINENTRY_DOUBLE_DESCRIPTORS"] = listing
        // Descriptors a server might hold (connections, files), inheritable and numbered from
        // 3 000 up so that none can be one the shell running the double opens for itself.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 4_300, limit.rlim_max >= 4_300 {
            limit.rlim_cur = 4_300
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let opened = (0..<1_200).map { fcntl(STDERR_FILENO, F_DUPFD, 3_000 + $0) }
        defer { opened.forEach { close($0) } }
        try #require(opened.allSatisfy { $0 >= 3_000 })
        let outcome = PinentryPrompter.ask(request, environment: PinentryEnvironment(variables: variables, terminal: nil))
        guard case .entered = outcome else {
            Issue.record("expected a PIN, got \(outcome)")
            return
        }
        let held = try String(contentsOfFile: listing, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
        #expect(held.contains(0) && held.contains(1) && held.contains(2))
        let inherited = held.filter { $0 >= 3_000 }.count
        #expect(inherited == 0, "the program holds \(inherited) of the caller's descriptors")
    }

    @Test("An empty answer (OK without data) is an empty secret")
    func emptyAnswer() throws {
        let directory = try TestDirectory()
        let outcome = PinentryPrompter.ask(request, environment: PinentryDouble(directory: directory.path).environment(.pin))
        guard case .entered(let secret) = outcome else {
            Issue.record("expected a PIN, got \(outcome)")
            return
        }
        #expect(secret.count == 0)
    }

    @Test("A refused answer is asked again with the refusal shown (SETERROR); when every attempt is refused the prompt ends as rejected")
    func checkedAnswers() throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let outcome = PinentryPrompter.ask(request, environment: double.environment(.pin, pins: ["a", "b"]), attempts: 2) { _ in
            .rejected(reason: "not that one")
        }
        guard case .rejected(let reason) = outcome else {
            Issue.record("expected rejected, got \(outcome)")
            return
        }
        #expect(reason == "not that one")
        let lines = try #require(double.receivedLines())
        #expect(lines.filter { $0 == "GETPIN" }.count == 2)
        #expect(lines.filter { $0 == "SETERROR not that one" }.count == 1)
    }

    @Test("Pinentry's ERR 83886179 is a cancel")
    func cancelled() throws {
        let directory = try TestDirectory()
        let outcome = PinentryPrompter.ask(request, environment: PinentryDouble(directory: directory.path).environment(.cancel))
        guard case .cancelled = outcome else {
            Issue.record("expected a cancel, got \(outcome)")
            return
        }
    }

    @Test("Any other ERR, a line that is not Assuan, or no program at all: the prompt is unavailable")
    func unavailable() throws {
        for mode in [PinentryDouble.Mode.error, .garbage] {
            let directory = try TestDirectory()
            let outcome = PinentryPrompter.ask(request, environment: PinentryDouble(directory: directory.path).environment(mode))
            guard case .unavailable = outcome else {
                Issue.record("\(mode): expected unavailable, got \(outcome)")
                continue
            }
        }
        let missing = PinentryEnvironment(variables: ["KEYCHAIN_PINENTRY": "/nonexistent/pinentry"], terminal: nil)
        guard case .unavailable = PinentryPrompter.ask(request, environment: missing) else {
            Issue.record("expected unavailable without a program")
            return
        }
    }

    @Test("A program that never answers is killed at the deadline and the prompt is unavailable, not hung")
    func hangingProgramIsKilled() throws {
        for mode in [PinentryDouble.Mode.hang, .silent] {
            let directory = try TestDirectory()
            let outcome = PinentryPrompter.ask(request, environment: PinentryDouble(directory: directory.path).environment(mode, timeout: 1))
            guard case .unavailable(let reason) = outcome else {
                Issue.record("\(mode): expected unavailable, got \(outcome)")
                continue
            }
            #expect(reason.contains("in time"))
        }
    }

    @Test("Withdrawing a prompt kills the program; the prompt ends as interrupted")
    func withdrawn() throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let cancellation = PromptCancellation()
        // A long timeout: only the withdrawal can end this prompt in time.
        let environment = double.environment(.hang, timeout: 120)
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: PinentryOutcome?
        DispatchQueue.global().async { [request] in
            outcome = PinentryPrompter.ask(request, environment: environment, cancellation: cancellation)
            finished.signal()
        }
        // Waits on this thread (the program may be slow to start on a busy machine).
        for _ in 0..<3_000 where double.receivedLines()?.contains("GETPIN") != true { usleep(10_000) }
        cancellation.cancel()
        finished.wait()
        guard case .interrupted? = outcome else {
            Issue.record("expected interrupted, got \(String(describing: outcome))")
            return
        }
    }
}
