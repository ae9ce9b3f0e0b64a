import Foundation

/// A chain of Foundation containers, each holding the next, as deep as a test asks: the value a
/// caller could put under any key of a request dictionary.
///
/// The chain is built and torn down one level at a time: releasing a 100 000-level chain from its
/// outermost container would free it recursively, one stack frame per level, and overflow the
/// test's own stack before the code under test is ever blamed.
final class NestedValue {
    /// The kinds of container the chain is made of.
    enum Kind: String, CaseIterable, Sendable {
        /// `NSMutableDictionary`s, each holding the next under one key.
        case dictionaries
        /// `NSMutableArray`s of one element.
        case arrays
        /// Dictionaries and arrays in turn.
        case mixed
    }

    /// The outermost container (the innermost holds a string); a plain string for zero containers.
    /// Valid only while this object lives: its deinitializer empties every container.
    private let outermost: AnyObject
    private let containers: [AnyObject]

    /// `count` containers of `kind`, each inside the next.
    init(containers count: Int, kind: Kind) {
        var inner: AnyObject = "innermost" as NSString
        var containers: [AnyObject] = []
        containers.reserveCapacity(count)
        for level in 0..<count {
            let useArray = kind == .arrays || (kind == .mixed && level % 2 == 1)
            if useArray {
                let array = NSMutableArray()
                array.add(inner)
                inner = array
            } else {
                let dictionary = NSMutableDictionary()
                dictionary.setObject(inner, forKey: "next" as NSString)
                inner = dictionary
            }
            containers.append(inner)
        }
        self.containers = containers
        outermost = inner
    }

    /// A value that makes a request dictionary `levels` levels deep when it is stored in it: the
    /// request dictionary is level 1, so the value holds `levels - 1` containers.
    convenience init(requestLevels levels: Int, kind: Kind) {
        self.init(containers: max(levels - 1, 0), kind: kind)
    }

    /// Runs `body` with the outermost container while the chain is intact.
    func use<T>(_ body: (AnyObject) throws -> T) rethrows -> T {
        try withExtendedLifetime(self) { try body(outermost) }
    }

    deinit {
        // Every container is still held by `containers`: emptying each frees nothing, and the
        // array then releases containers that hold nothing, one at a time.
        for container in containers {
            (container as? NSMutableArray)?.removeAllObjects()
            (container as? NSMutableDictionary)?.removeAllObjects()
        }
    }
}

/// Runs `body` on a new thread with a stack of `stackSize` bytes and waits for it: what a caller
/// on a secondary thread (512 KiB by default on Apple platforms) can rely on.
func onThread<T: Sendable>(stackSize: Int, _ body: @escaping @Sendable () -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.value = body()
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    done.wait()
    return box.value!
}

/// A value handed to another thread by a test that knows only one thread uses it at a time.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Where a thread leaves its result for the thread that waits for it.
private final class ResultBox<Value>: @unchecked Sendable {
    var value: Value?
}
