/// How an attribute's values are accepted, stored, compared and returned (the attribute kinds of
/// Apple's item schema, `SecDbItem.c`).
public enum AttributeKind: Sendable {
    /// A string, data or number kept in the type the caller used and compared by its bytes
    /// (`kSecAttrAccount`, `kSecAttrService`, `kSecAttrLabel`, …).
    case blob
    /// Bytes: data as given, a string as UTF-8, a number as a 4-byte native integer (`kSecAttrIssuer`, …).
    case data
    /// Text: a string as given, data decoded as UTF-8 (`kSecAttrAccessGroup`, `kSecAttrTokenID`).
    case string
    /// An integer: numbers, booleans as 0/1 and decimal strings; any other string is kept as a
    /// string (`kSecAttrProtocol` values such as `"htps"`).
    case number
    /// `kSecAttrSynchronizable`: a boolean stored as 0/1.
    case synchronizable
    /// A date.
    case date
    /// `kSecAttrAccessible`: one of Apple's protection strings.
    case protection
    /// `kSecAttrAccessControl`: a `SecAccessControl`.
    case accessControl
    /// A 20-byte SHA-1 digest computed by the keychain (`sha1`).
    case digest
}
