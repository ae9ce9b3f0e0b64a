import Foundation
import Security

/// `stress`: one of the concurrency test's processes. Each of its threads mixes operations on
/// keys only it writes (so its log orders every write to them) and on keys every thread of every
/// process races for, for a bounded time.
///
/// Per thread, `<log-dir>/p<process>-t<thread>.log` receives:
/// - `A add|update|delete <account> <tag|->` for every acknowledged write;
/// - `X <what>` for every violation seen: a read that did not return the thread's own last
///   acknowledged write, an outcome its own writes rule out, a torn item, two items under one key;
/// - `U <operation> <status>` for any status other than success, duplicate or not found
///   (`database is locked` reaching a caller would show here as errSecNotAvailable);
/// - at the end `S <operations> <slowest call in ms>`.
struct StressWorker {
    static let service = "stress"
    static let privateKeys = 6

    let logDirectory: String
    let process: Int
    let threads: Int
    let seconds: Double
    let seed: UInt64
    let sharedKeys: Int

    init(_ arguments: HelperArguments) throws {
        logDirectory = try arguments.string("log-dir")
        process = try arguments.integer("process")
        threads = try arguments.integer("threads")
        seconds = Double(try arguments.integer("seconds"))
        seed = UInt64(try arguments.integer("seed"))
        sharedKeys = try arguments.integer("shared", default: 200)
    }

    func run() throws {
        let deadline = Date().addingTimeInterval(seconds)
        let logs = try (0..<threads).map { try OperationLog(path: "\(logDirectory)/p\(process)-t\($0).log") }
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var worker = ThreadWork(
                owner: "p\(process)t\(thread)", log: logs[thread], sharedKeys: sharedKeys,
                generator: SplitMix(seed: seed &* 1_000_003 &+ UInt64(process * 64 + thread)))
            worker.run(until: deadline)
        }
    }
}

/// One thread's share of the stress run.
private struct ThreadWork {
    let owner: String
    let log: OperationLog
    let sharedKeys: Int
    var generator: SplitMix
    let client = PasswordClient(service: StressWorker.service)
    /// What this thread last acknowledged for each of its own keys (nil: no item).
    var own: [String: String] = [:]
    var operations = 0
    /// The slowest call so far, in seconds (a box, so timing needs no mutation of the worker).
    let slowest = SlowestCall()

    init(owner: String, log: OperationLog, sharedKeys: Int, generator: SplitMix) {
        self.owner = owner
        self.log = log
        self.sharedKeys = sharedKeys
        self.generator = generator
    }

    mutating func run(until deadline: Date) {
        while Date() < deadline {
            let roll = generator.below(100)
            if roll < 60 {
                ownOperation(roll)
            } else {
                sharedOperation(roll)
            }
            operations += 1
        }
        log.append("S \(operations) \(Int(slowest.seconds * 1000))", durable: true)
    }

    private func timed<T>(_ body: () -> T) -> T {
        let start = Date()
        let value = body()
        slowest.seconds = max(slowest.seconds, Date().timeIntervalSince(start))
        return value
    }

    private mutating func newTag() -> String {
        ItemValue.tag(writer: owner, sequence: operations, length: 16 + generator.below(400))
    }

    private mutating func ownOperation(_ roll: Int) {
        let account = "\(owner)k\(generator.below(StressWorker.privateKeys))"
        let current = own[account]
        switch roll {
        case 0..<18:
            let tag = newTag()
            let status = timed { client.add(account: account, label: tag, secret: ItemValue.secret(for: tag)) }
            expect("add \(account)", status, current == nil ? errSecSuccess : errSecDuplicateItem)
            if status == errSecSuccess {
                own[account] = tag
                log.append("A add \(account) \(tag)")
            }
        case 18..<36:
            let tag = newTag()
            let status = timed { client.update(account: account, label: tag, secret: ItemValue.secret(for: tag)) }
            expect("update \(account)", status, current == nil ? errSecItemNotFound : errSecSuccess)
            if status == errSecSuccess {
                own[account] = tag
                log.append("A update \(account) \(tag)")
            }
        case 36..<45:
            let status = timed { client.delete(account: account) }
            expect("delete \(account)", status, current == nil ? errSecItemNotFound : errSecSuccess)
            if status == errSecSuccess {
                own[account] = nil
                log.append("A delete \(account) -")
            }
        default:
            let (status, item) = timed { client.read(account: account) }
            expect("read \(account)", status, current == nil ? errSecItemNotFound : errSecSuccess)
            if let item, item.label != current {
                log.append("X read \(account) returned \(item.label), not its own last write \(current ?? "-")")
            }
            checkIntact(item)
        }
    }

    private mutating func sharedOperation(_ roll: Int) {
        let account = "shared-\(generator.below(sharedKeys))"
        switch roll {
        case 60..<75:
            let tag = newTag()
            let status = timed { client.add(account: account, label: tag, secret: ItemValue.secret(for: tag)) }
            allow("add \(account)", status, [errSecSuccess, errSecDuplicateItem])
            if status == errSecSuccess { log.append("A add \(account) \(tag)") }
        case 75..<85:
            let tag = newTag()
            let status = timed { client.update(account: account, label: tag, secret: ItemValue.secret(for: tag)) }
            allow("update \(account)", status, [errSecSuccess, errSecItemNotFound])
            if status == errSecSuccess { log.append("A update \(account) \(tag)") }
        case 85..<93:
            let (status, item) = timed { client.read(account: account) }
            allow("read \(account)", status, [errSecSuccess, errSecItemNotFound])
            checkIntact(item)
        default:
            let (status, count) = timed { client.count(account: account) }
            allow("count \(account)", status, [errSecSuccess, errSecItemNotFound])
            if count > 1 { log.append("X \(count) items under the one key \(account)") }
        }
    }

    private func expect(_ operation: String, _ status: OSStatus, _ expected: OSStatus) {
        guard status != expected else { return }
        if status == errSecSuccess || status == errSecDuplicateItem || status == errSecItemNotFound {
            log.append("X \(operation) returned \(status) where this thread's own writes imply \(expected)")
        } else {
            log.append("U \(operation) \(status)")
        }
    }

    private func allow(_ operation: String, _ status: OSStatus, _ allowed: [OSStatus]) {
        if !allowed.contains(status) { log.append("U \(operation) \(status)") }
    }

    private func checkIntact(_ item: PasswordClient.Item?) {
        if let item, !ItemValue.isIntact(label: item.label, secret: item.secret) {
            log.append("X torn item \(item.account) labelled \(item.label)")
        }
    }
}

/// The longest a call took, in seconds.
private final class SlowestCall {
    var seconds = 0.0
}
