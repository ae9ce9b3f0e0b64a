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
        /// The engine attribute shown (its short name).
        let source: String
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

    private static func named(_ name: String, _ format: Format, from source: String? = nil) -> Attribute {
        Attribute(tag: code(name), format: format, source: source ?? name)
    }

    private static let label = Attribute(tag: 7, format: .blob, source: "labl")
    private static let alias = Attribute(tag: 8, format: .blob, source: "alis")

    private static let genericPassword: [Attribute] = [
        label, alias,
        named("acct", .blob), named("cdat", .timedate), named("crtr", .uint32), named("cusi", .sint32),
        named("desc", .blob), named("gena", .blob), named("icmt", .blob), named("invi", .sint32),
        named("mdat", .timedate), named("nega", .sint32), named("prot", .blob), named("scrp", .sint32),
        named("svce", .blob), named("type", .uint32),
    ]

    private static let internetPassword: [Attribute] = [
        label, alias,
        named("acct", .blob), named("atyp", .blob), named("cdat", .timedate), named("crtr", .uint32),
        named("cusi", .sint32), named("desc", .blob), named("icmt", .blob), named("invi", .sint32),
        named("mdat", .timedate), named("nega", .sint32), named("path", .blob), named("port", .uint32),
        named("prot", .blob), named("ptcl", .uint32), named("scrp", .sint32), named("sdmn", .blob),
        named("srvr", .blob), named("type", .uint32),
    ]

    /// The X.509 certificate record (CSSM names; `issu`, `snbr` and `hpky` are the engine's
    /// `issr`, `slnr` and `pkhh`).
    private static let certificate: [Attribute] = [
        named("alis", .blob), named("cenc", .uint32), named("ctyp", .uint32), named("hpky", .blob, from: "pkhh"),
        named("issu", .blob, from: "issr"), named("labl", .blob), named("skid", .blob),
        named("snbr", .blob, from: "slnr"), named("subj", .blob),
    ]

    /// The CSSM key record: numeric attribute IDs 0 (key class) through 26 (can unwrap).
    private static let key: [Attribute] = {
        let columns: [(Format, String)] = [
            (.uint32, "kcls"), (.blob, "labl"), (.blob, "alis"), (.uint32, "perm"), (.uint32, "priv"),
            (.uint32, "modi"), (.blob, "klbl"), (.blob, "atag"), (.blob, "crtr"), (.uint32, "type"),
            (.uint32, "bsiz"), (.uint32, "esiz"), (.blob, "sdat"), (.blob, "edat"), (.uint32, "sens"),
            (.uint32, "asen"), (.uint32, "extr"), (.uint32, "next"), (.uint32, "encr"), (.uint32, "decr"),
            (.uint32, "drve"), (.uint32, "sign"), (.uint32, "vrfy"), (.uint32, "snrc"), (.uint32, "vyrc"),
            (.uint32, "wrap"), (.uint32, "unwp"),
        ]
        return columns.enumerated().map { Attribute(tag: UInt32($0.offset), format: $0.element.0, source: $0.element.1) }
    }()
}
