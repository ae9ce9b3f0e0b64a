import Foundation
import KeychainCrypto

#if canImport(Glibc)
import Glibc
#endif

/// Asks the user for a secret through a pinentry program (GnuPG's prompt programs), speaking its
/// Assuan protocol over a socket that is the program's standard input and output.
///
/// The conversation: the greeting, `OPTION ttyname` / `OPTION ttytype` when a terminal is known,
/// `SETTIMEOUT`, `SETTITLE`, `SETDESC`, `SETPROMPT`, `SETOK`, `SETCANCEL`, `GETPIN` (the answer's
/// data lines decoded straight into zeroed memory), `BYE`. With a check, a refused answer is
/// asked again with the check's reason shown (`SETERROR`), as gpg-agent asks again for a wrong
/// passphrase, up to a number of attempts. Every answer has a deadline (the prompt's timeout
/// and a grace period); a program that misses it is killed, so a prompt never hangs its caller.
package enum PinentryPrompter {
    /// Time allowed beyond the prompt's own timeout before the program is killed, in seconds.
    static let gracePeriod: Double = 2

    /// What a check says of an entered secret.
    package enum Verdict: Sendable {
        /// The secret is right: the prompt ends with it.
        case accepted
        /// The secret is wrong: asked again with `reason` shown (never a secret), while attempts remain.
        case rejected(reason: String)
    }

    /// Shows `request` and returns how it ended.
    ///
    /// - Parameters:
    ///   - attempts: how many answers `check` may refuse before the prompt ends as `.rejected`.
    ///   - check: judges each answer; nil accepts the first one.
    package static func ask(
        _ request: PinentryRequest, environment: PinentryEnvironment, cancellation: PromptCancellation = PromptCancellation(),
        attempts: Int = 1, check: ((SecureBytes) -> Verdict)? = nil
    ) -> PinentryOutcome {
        let program: String
        switch environment.program() {
        case .success(let path): program = path
        case .failure(let failure): return .unavailable(reason: failure.reason)
        }
        if cancellation.isCancelled { return .interrupted }

        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            return .unavailable(reason: "cannot create the pinentry socket")
        }
        let ours = pair[0]
        let theirs = pair[1]
        defer { close(ours) }

        let started = SpawnedProgram(path: program, environment: environment.variables, stream: theirs)
        close(theirs)
        guard let process = started else {
            return .unavailable(reason: "the pinentry program could not be started")
        }
        guard cancellation.started(process.pid) else {
            process.waitUntilExit()
            return .interrupted
        }

        let connection = AssuanConnection(descriptor: ours, deadline: answerDeadline(environment))
        let outcome: PinentryOutcome
        do {
            outcome = try converse(request, environment: environment, over: connection, attempts: max(attempts, 1), check: check)
        } catch {
            outcome = cancellation.isCancelled ? .interrupted : unavailable(error)
        }
        end(process, deadline: min(connection.deadline, ContinuousClock.now + .seconds(2)), cancellation: cancellation)
        if cancellation.isCancelled, case .entered = outcome { return .interrupted }
        return outcome
    }

    /// When an answer asked for now is overdue: the prompt's timeout and the grace period.
    private static func answerDeadline(_ environment: PinentryEnvironment) -> ContinuousClock.Instant {
        ContinuousClock.now + .milliseconds(Int((environment.timeout + gracePeriod) * 1000))
    }

    /// The conversation, up to and including `BYE`.
    private static func converse(
        _ request: PinentryRequest, environment: PinentryEnvironment, over connection: AssuanConnection,
        attempts: Int, check: ((SecureBytes) -> Verdict)?
    ) throws(AssuanConnection.Failure) -> PinentryOutcome {
        guard try connection.response() == .ok else { throw .protocolViolation("no greeting") }
        if let terminal = environment.terminal {
            try connection.send("OPTION", AssuanEscaping.argument("ttyname=\(terminal)", after: "OPTION"))
            if case .error = try connection.response() { return .unavailable(reason: "pinentry cannot use the terminal") }
            if let type = environment.variables["TERM"], !type.isEmpty {
                try connection.send("OPTION", AssuanEscaping.argument("ttytype=\(type)", after: "OPTION"))
                _ = try connection.response()
            }
        }
        // Programs without a timeout refuse it; the deadline still applies.
        try connection.send("SETTIMEOUT", String(Int(environment.timeout.rounded(.up))))
        _ = try connection.response()
        for (command, text) in [
            ("SETTITLE", request.title), ("SETDESC", request.description), ("SETPROMPT", request.prompt),
            ("SETOK", request.okLabel), ("SETCANCEL", request.cancelLabel),
        ] {
            try connection.send(command, AssuanEscaping.argument(text, after: command))
            if case .error(_, let message) = try connection.response() {
                return .unavailable(reason: "pinentry refused \(command): \(message)")
            }
        }
        for attempt in 1...attempts {
            connection.deadline = answerDeadline(environment)
            try connection.send("GETPIN")
            let outcome = try answer(from: connection)
            guard case .entered(let secret) = outcome, let check else {
                try? connection.send("BYE")
                return outcome
            }
            switch check(secret) {
            case .accepted:
                try? connection.send("BYE")
                return outcome
            case .rejected(let reason):
                guard attempt < attempts else {
                    try? connection.send("BYE")
                    return .rejected(reason: reason)
                }
                try connection.send("SETERROR", AssuanEscaping.argument(reason, after: "SETERROR"))
                _ = try connection.response()
            }
        }
        return .rejected(reason: "no attempt was made")
    }

    /// The outcome of one `GETPIN`.
    private static func answer(from connection: AssuanConnection) throws(AssuanConnection.Failure) -> PinentryOutcome {
        let collector = SecretCollector()
        while true {
            let response = try connection.response(collecting: collector)
            switch response {
            case .ok:
                return .entered(collector.secret())
            case .error(_, let message):
                switch response.errorCode {
                case AssuanResponse.cancelledCode: return .cancelled
                case AssuanResponse.timeoutCode: return .unavailable(reason: "the prompt timed out")
                default: return .unavailable(reason: "pinentry failed: \(message)")
                }
            case .inquire:
                // Pinentry has nothing to ask a client; decline and read on.
                try connection.send("CAN")
            case .status, .comment:
                continue
            }
        }
    }

    private static func unavailable(_ failure: any Error) -> PinentryOutcome {
        switch failure as? AssuanConnection.Failure {
        case .timedOut?: return .unavailable(reason: "pinentry did not answer in time")
        case .closed?: return .unavailable(reason: "pinentry ended without answering")
        case .protocolViolation(let what)?: return .unavailable(reason: "pinentry broke the protocol: \(what)")
        case nil: return .unavailable(reason: "pinentry failed")
        }
    }

    /// Waits for the program to exit until `deadline`, then kills it; always reaps it.
    private static func end(_ process: SpawnedProgram, deadline: ContinuousClock.Instant, cancellation: PromptCancellation) {
        while process.isRunning, ContinuousClock.now < deadline {
            usleep(10_000)
        }
        cancellation.finished()
        if process.isRunning { process.kill() }
        process.waitUntilExit()
    }
}
