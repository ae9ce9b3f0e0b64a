import Foundation
import Security

/// `crash-writer`: dumps what it finds (for the test to check against the log so far; only when
/// given `--state`), then performs random adds, updates, deletes and reads until killed (or, in
/// `power-loss` mode, until its simulated disk loses power), logging each one.
///
/// Log lines, in order for each operation `n`:
/// - `B n add|update|delete|read <account> <tag|->` before the call;
/// - `A n` after a write returned errSecSuccess (synced to disk: the write is acknowledged);
/// - `R n <status>` after a write was refused (errSecDuplicateItem, errSecItemNotFound, …);
/// - `V n <label> ok|torn` or `N n <status>` after a read.
struct CrashWriter {
    static let service = "crash.writer"
    static let accounts = 24

    let log: OperationLog
    let statePath: String?
    let seed: UInt64
    let operations: Int

    init(_ arguments: HelperArguments) throws {
        log = try OperationLog(path: try arguments.string("log"))
        statePath = try? arguments.string("state")
        seed = UInt64(try arguments.integer("seed"))
        operations = try arguments.integer("ops", default: Int.max)
    }

    /// Runs the operations, calling `afterEach` with each one's sequence number once it is logged.
    func run(afterEach: (Int) throws -> Void = { _ in }) throws {
        if let statePath { try StateDump.write(to: statePath) }
        let client = PasswordClient(service: Self.service)
        var generator = SplitMix(seed: seed)
        for sequence in 0..<operations {
            let account = "acct-\(generator.below(Self.accounts))"
            let roll = generator.below(100)
            let tag = ItemValue.tag(writer: "s\(seed)", sequence: sequence, length: ItemValue.randomLength(&generator))
            switch roll {
            case 0..<35:
                log.append("B \(sequence) add \(account) \(tag)")
                record(sequence, client.add(account: account, label: tag, secret: ItemValue.secret(for: tag)))
            case 35..<65:
                log.append("B \(sequence) update \(account) \(tag)")
                record(sequence, client.update(account: account, label: tag, secret: ItemValue.secret(for: tag)))
            case 65..<80:
                log.append("B \(sequence) delete \(account) -")
                record(sequence, client.delete(account: account))
            default:
                log.append("B \(sequence) read \(account) -")
                let (status, item) = client.read(account: account)
                if let item, status == errSecSuccess {
                    let intact = ItemValue.isIntact(label: item.label, secret: item.secret)
                    log.append("V \(sequence) \(item.label) \(intact ? "ok" : "torn")")
                } else {
                    log.append("N \(sequence) \(status)")
                }
            }
            try afterEach(sequence)
        }
    }

    private func record(_ sequence: Int, _ status: OSStatus) {
        if status == errSecSuccess {
            log.append("A \(sequence)", durable: true)
        } else {
            log.append("R \(sequence) \(status)", durable: true)
        }
    }
}
