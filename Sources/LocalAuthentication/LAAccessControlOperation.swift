/// The operation an access control is evaluated for (`LAAccessControlOperation`), with Apple's
/// raw values.
public enum LAAccessControlOperation: Int, Sendable, Hashable {
    /// Creating an item.
    case createItem = 0
    /// Reading an item's secret.
    case useItem = 1
    /// Creating a key.
    case createKey = 2
    /// Signing with a private key.
    case useKeySign = 3
    /// Decrypting with a private key.
    case useKeyDecrypt = 4
    /// Key exchange with a private key.
    case useKeyKeyExchange = 5
}
