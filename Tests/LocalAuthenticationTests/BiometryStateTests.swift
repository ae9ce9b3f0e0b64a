import Foundation
import KeychainAuthentication
import KeychainCrypto
import Testing

/// The enrolled set's canonical bytes, the domain-state hash and its key, and the lockout count.
@Suite("Biometric domain state and lockout")
struct BiometryStateTests {
    @Test("Canonical bytes ignore the order and repetition of fingers, and tell apart readers and ambiguous joins")
    func canonicalBytes() {
        let set = EnrolledFingerprints(reader: "Reader", fingers: ["right-thumb", "left-thumb"])
        #expect(set.canonicalBytes == EnrolledFingerprints(reader: "Reader", fingers: ["left-thumb", "right-thumb", "left-thumb"]).canonicalBytes)
        #expect(set.canonicalBytes != EnrolledFingerprints(reader: "Other", fingers: ["right-thumb", "left-thumb"]).canonicalBytes)
        #expect(EnrolledFingerprints(reader: "r", fingers: ["ab"]).canonicalBytes != EnrolledFingerprints(reader: "r", fingers: ["a", "b"]).canonicalBytes)
        #expect(EnrolledFingerprints(reader: "ra", fingers: ["b"]).canonicalBytes != EnrolledFingerprints(reader: "r", fingers: ["ab"]).canonicalBytes)
        #expect(set.canonicalBytes.prefix(4) == [0, 0, 0, 6])
    }

    @Test("The domain state is a keyed hash: stable, per program, changed by the enrolment, and different under another key")
    func keyedHash() throws {
        let one = EnrolledFingerprints(reader: "Reader", fingers: ["right-index-finger"])
        let two = EnrolledFingerprints(reader: "Reader", fingers: ["right-index-finger", "left-thumb"])
        let state = BiometryDomainState(key: SecureBytes(copying: Data(repeating: 1, count: 32)))
        let hash = try state.hash(of: one, program: "/usr/bin/a")
        #expect(hash.count == 32)
        #expect(try state.hash(of: one, program: "/usr/bin/a") == hash)
        #expect(try state.hash(of: one, program: "/usr/bin/b") != hash)
        #expect(try state.hash(of: two, program: "/usr/bin/a") != hash)
        let other = BiometryDomainState(key: SecureBytes(copying: Data(repeating: 2, count: 32)))
        #expect(try other.hash(of: one, program: "/usr/bin/a") != hash)
    }

    @Test("The key file is created once, 32 bytes, mode 0600, and read back by later uses; a damaged one is refused")
    func keyFile() throws {
        let directory = try TestDirectory()
        let path = directory.path + "/biometry-state.key"
        let set = EnrolledFingerprints(reader: "Reader", fingers: ["left-thumb"])
        let first = try BiometryDomainState(keyFile: path).hash(of: set, program: "p")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect((attributes[.size] as? Int) == 32)
        #expect(try BiometryDomainState(keyFile: path).hash(of: set, program: "p") == first)
        let elsewhere = try BiometryDomainState(keyFile: directory.path + "/another.key").hash(of: set, program: "p")
        #expect(elsewhere != first)
        try Data(repeating: 0, count: 5).write(to: URL(fileURLWithPath: path))
        #expect(throws: (any Error).self) { try BiometryDomainState(keyFile: path) }
    }

    @Test("The lockout count is shared through its file, locks at five, is cleared by reset, and a damaged file counts as locked")
    func lockoutFile() throws {
        let directory = try TestDirectory()
        let path = directory.path + "/biometry-failures"
        for attempt in 1...4 {
            #expect(!BiometryLockout(path: path).recordFailure())
            #expect(BiometryLockout(path: path).failures == attempt)
        }
        #expect(!BiometryLockout(path: path).isLockedOut)
        #expect(BiometryLockout(path: path).recordFailure())
        #expect(BiometryLockout(path: path).isLockedOut)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        BiometryLockout(path: path).reset()
        #expect(BiometryLockout(path: path).failures == 0)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: path))
        #expect(BiometryLockout(path: path).isLockedOut)
    }
}

/// A verifier answering from a list, for the lockout guard.
private final class ScriptedVerifier: FingerprintVerifying, @unchecked Sendable {
    var verdicts: [FingerprintVerdict]
    private(set) var asked = 0

    init(_ verdicts: [FingerprintVerdict]) {
        self.verdicts = verdicts
    }

    func enrolledFingerprints() throws -> EnrolledFingerprints? {
        EnrolledFingerprints(reader: "Scripted", fingers: ["left-thumb"])
    }

    func verify(reason: String, cancellation: PromptCancellation) -> FingerprintVerdict {
        asked += 1
        return verdicts.removeFirst()
    }
}

@Suite("Lockout-guarded verifier")
struct LockoutGuardedVerifierTests {
    @Test("Wrong fingers count; the fifth is answered lockedOut and later ones ask no finger; a match before the limit clears the count")
    func guardsTheVerifier() {
        let lockout = BiometryLockout.inMemory()
        let scripted = ScriptedVerifier([.noMatch, .noMatch, .matched] + Array(repeating: .noMatch, count: 5))
        let guarded = LockoutGuardedVerifier(scripted, lockout: lockout)
        #expect(guarded.verify(reason: "r", cancellation: PromptCancellation()) == .noMatch)
        #expect(guarded.verify(reason: "r", cancellation: PromptCancellation()) == .noMatch)
        #expect(guarded.verify(reason: "r", cancellation: PromptCancellation()) == .matched)
        #expect(lockout.failures == 0)
        for _ in 0..<4 { #expect(guarded.verify(reason: "r", cancellation: PromptCancellation()) == .noMatch) }
        #expect(guarded.verify(reason: "r", cancellation: PromptCancellation()) == .lockedOut)
        #expect(guarded.verify(reason: "r", cancellation: PromptCancellation()) == .lockedOut)
        #expect(scripted.asked == 8)
        scripted.verdicts = [.matched]
        lockout.reset()
        #expect(guarded.verify(reason: "r", cancellation: PromptCancellation()) == .matched)
        #expect(scripted.asked == 9)
    }
}
