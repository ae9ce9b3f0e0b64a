import KeychainCore

/// A random number generator reference (`SecRandomRef`); only the default generator exists.
public typealias SecRandomRef = OpaquePointer

/// The default generator (`let kSecRandomDefault: SecRandomRef`: not optional, as Apple's SDK
/// imports it from a nullability-audited header). A token that only names the default
/// generator, never dereferenced; `SecRandomCopyBytes` takes it, or nil, for the one generator.
nonisolated(unsafe) public let kSecRandomDefault: SecRandomRef = OpaquePointer(bitPattern: 1)!

/// Fills `bytes` with `count` cryptographically secure random bytes (`SecRandomCopyBytes`),
/// from OpenSSL's CSPRNG.
///
/// - Returns: `errSecSuccess`, or `errSecParam` for a negative count, or the generator's failure.
public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count >= 0 else { return errSecParam }
    return StatusMapping.run { try CryptoRandom.fill(UnsafeMutableRawBufferPointer(start: bytes, count: count)) }
}
