import KeychainCore

/// The attribute blocks of macOS's item dumps: each class's attributes in the order
/// `security` prints them, with their tags, formats, and the engine attributes they show.
struct DumpSchema: Sendable {
    /// A dump attribute's CSSM format, printed after the tag.
    enum Format: String, Sendable {
        case blob = "<blob>"
        case uint32 = "<uint32>"
        case sint32 = "<sint32>"
        case timedate = "<timedate>"
    }

    /// One line of the block.
    struct Attribute: Sendable {
        /// The tag: a four-character name, or a numeric attribute ID (label 7, alias 8, keys' 0–26).
        let tag: UInt32
        /// The printed format.
        let format: Format
        /// The engine attribute shown.
        let source: AttributeDescriptor
    }

    /// The record type printed on the `class:` line.
    let recordType: UInt32
    /// The attribute lines, in print order.
    let attributes: [Attribute]

    /// The schema for an item of `itemClass`; `keyClass` is a key's `kcls` (0 public, 1 private,
    /// 2 symmetric).
    static func schema(for itemClass: ItemClass, keyClass: Int64? = nil) -> DumpSchema {
        switch itemClass {
        case .genericPassword: return DumpSchema(recordType: code("genp"), attributes: genericPassword)
        case .internetPassword: return DumpSchema(recordType: code("inet"), attributes: internetPassword)
        case .certificate: return DumpSchema(recordType: 0x8000_1000, attributes: certificate)
        case .key, .identity:
            // CSSM_DL_DB_RECORD_PUBLIC_KEY, _PRIVATE_KEY and _SYMMETRIC_KEY.
            let recordType: UInt32 = keyClass == 0 ? 0x0F : keyClass == 2 ? 0x11 : 0x10
            return DumpSchema(recordType: recordType, attributes: key)
        }
    }

    /// A four-character tag packed big-endian.
    static func code(_ name: String) -> UInt32 {
        name.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// A line tagged with `source`'s short name, as macOS tags password and certificate attributes.
    private static func named(_ source: AttributeDescriptor, _ format: Format) -> Attribute {
        Attribute(tag: code(source.name), format: format, source: source)
    }

    /// A line whose CSSM tag differs from the short name of the attribute it shows.
    private static func named(_ tag: String, _ format: Format, from source: AttributeDescriptor) -> Attribute {
        Attribute(tag: code(tag), format: format, source: source)
    }

    private static let label = Attribute(tag: 7, format: .blob, source: .label)
    private static let alias = Attribute(tag: 8, format: .blob, source: .alias)

    private static let genericPassword: [Attribute] = [
        label, alias,
        named(.account, .blob), named(.creationDate, .timedate), named(.creator, .uint32), named(.hasCustomIcon, .sint32),
        named(.description, .blob), named(.generic, .blob), named(.comment, .blob), named(.isInvisible, .sint32),
        named(.modificationDate, .timedate), named(.isNegative, .sint32), named(.protected, .blob), named(.scriptCode, .sint32),
        named(.service, .blob), named(.type, .uint32),
    ]

    private static let internetPassword: [Attribute] = [
        label, alias,
        named(.account, .blob), named(.authenticationType, .blob), named(.creationDate, .timedate), named(.creator, .uint32),
        named(.hasCustomIcon, .sint32), named(.description, .blob), named(.comment, .blob), named(.isInvisible, .sint32),
        named(.modificationDate, .timedate), named(.isNegative, .sint32), named(.path, .blob), named(.port, .uint32),
        named(.protected, .blob), named(.protocol, .uint32), named(.scriptCode, .sint32), named(.securityDomain, .blob),
        named(.server, .blob), named(.type, .uint32),
    ]

    /// The X.509 certificate record (CSSM names; `issu`, `snbr` and `hpky` are the engine's
    /// `issr`, `slnr` and `pkhh`).
    private static let certificate: [Attribute] = [
        named(.alias, .blob), named(.certificateEncoding, .uint32), named(.certificateType, .uint32), named("hpky", .blob, from: .publicKeyHash),
        named("issu", .blob, from: .issuer), named(.label, .blob), named(.subjectKeyID, .blob),
        named("snbr", .blob, from: .serialNumber), named(.subject, .blob),
    ]

    /// The CSSM key record: numeric attribute IDs 0 (key class) through 26 (can unwrap).
    private static let key: [Attribute] = {
        let columns: [(Format, AttributeDescriptor)] = [
            (.uint32, .keyClass), (.blob, .label), (.blob, .alias), (.uint32, .isPermanent), (.uint32, .isPrivate),
            (.uint32, .isModifiable), (.blob, .applicationLabel), (.blob, .applicationTag), (.blob, .creator), (.uint32, .type),
            (.uint32, .keySizeInBits), (.uint32, .effectiveKeySize), (.blob, .startDate), (.blob, .endDate), (.uint32, .isSensitive),
            (.uint32, .wasAlwaysSensitive), (.uint32, .isExtractable), (.uint32, .wasNeverExtractable), (.uint32, .canEncrypt), (.uint32, .canDecrypt),
            (.uint32, .canDerive), (.uint32, .canSign), (.uint32, .canVerify), (.uint32, .canSignRecover), (.uint32, .canVerifyRecover),
            (.uint32, .canWrap), (.uint32, .canUnwrap),
        ]
        return columns.enumerated().map { Attribute(tag: UInt32($0.offset), format: $0.element.0, source: $0.element.1) }
    }()
}
