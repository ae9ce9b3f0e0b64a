/// The attribute catalog: every attribute of every item class, declared once.
///
/// Validation, storage, uniqueness and result building all read it. Attributes, kinds and classes
/// follow Apple's schema (`SecItemSchema.c`). The primary keys are the documented ones: service
/// and account for generic passwords; account, security domain, server, protocol, authentication
/// type, port and path for internet passwords; application tag and label, key type and class,
/// effective and total size for keys; certificate type, issuer and serial number for
/// certificates; each also including the access group and the synchronizable flag. Apple's schema
/// also keys keys by creator and start/end date and every class by token ID; the documented
/// primary keys do not, and neither does this catalog.
public enum AttributeCatalog {
    private static let passwords: Set<ItemClass> = [.genericPassword, .internetPassword]
    private static let all: Set<ItemClass> = Set(ItemClass.stored)
    private static let inet: Set<ItemClass> = [.internetPassword]
    private static let cert: Set<ItemClass> = [.certificate]
    private static let key: Set<ItemClass> = [.key]

    /// Every attribute, in the order primary keys are composed.
    public static let attributes: [AttributeDescriptor] = [
        // Common to every class.
        .init("cdat", "kSecAttrCreationDate", .date, classes: all, maintainer: .system),
        .init("mdat", "kSecAttrModificationDate", .date, classes: all, maintainer: .system),
        .init("labl", "kSecAttrLabel", .blob, classes: all),
        .init("alis", "kSecAttrAlias", .blob, classes: all),
        .init("pdmn", "kSecAttrAccessible", .protection, classes: all),
        .init("accc", "kSecAttrAccessControl", .accessControl, classes: all),
        .init("sha1", "kSecAttrSHA1", .digest, classes: all, maintainer: .computed),

        // Passwords.
        .init("desc", "kSecAttrDescription", .blob, classes: passwords),
        .init("icmt", "kSecAttrComment", .blob, classes: passwords),
        .init("crtr", "kSecAttrCreator", .number, classes: passwords.union(key)),
        .init("type", "kSecAttrType", .number, classes: passwords.union(key), primaryKeyOf: key),
        .init("scrp", "kSecAttrScriptCode", .number, classes: passwords),
        .init("invi", "kSecAttrIsInvisible", .number, classes: passwords),
        .init("nega", "kSecAttrIsNegative", .number, classes: passwords),
        .init("cusi", "kSecAttrHasCustomIcon", .number, classes: passwords),
        .init("prot", "kSecAttrProtected", .blob, classes: passwords),
        .init("acct", "kSecAttrAccount", .blob, classes: passwords, primaryKeyOf: passwords),
        .init("svce", "kSecAttrService", .blob, classes: [.genericPassword], primaryKeyOf: [.genericPassword]),
        .init("gena", "kSecAttrGeneric", .blob, classes: [.genericPassword]),
        .init("sdmn", "kSecAttrSecurityDomain", .blob, classes: inet, primaryKeyOf: inet),
        .init("srvr", "kSecAttrServer", .blob, classes: inet, primaryKeyOf: inet),
        .init("ptcl", "kSecAttrProtocol", .number, classes: inet, primaryKeyOf: inet),
        .init("atyp", "kSecAttrAuthenticationType", .blob, classes: inet, primaryKeyOf: inet),
        .init("port", "kSecAttrPort", .number, classes: inet, primaryKeyOf: inet),
        .init("path", "kSecAttrPath", .blob, classes: inet, primaryKeyOf: inet),

        // Certificates.
        .init("ctyp", "kSecAttrCertificateType", .number, classes: cert, primaryKeyOf: cert),
        .init("cenc", "kSecAttrCertificateEncoding", .number, classes: cert),
        .init("subj", "kSecAttrSubject", .data, classes: cert),
        .init("issr", "kSecAttrIssuer", .data, classes: cert, primaryKeyOf: cert),
        .init("slnr", "kSecAttrSerialNumber", .data, classes: cert, primaryKeyOf: cert),
        .init("skid", "kSecAttrSubjectKeyID", .data, classes: cert),
        .init("pkhh", "kSecAttrPublicKeyHash", .data, classes: cert),

        // Keys.
        .init("kcls", "kSecAttrKeyClass", .number, classes: key, primaryKeyOf: key),
        .init("klbl", "kSecAttrApplicationLabel", .data, classes: key, primaryKeyOf: key),
        .init("atag", "kSecAttrApplicationTag", .blob, classes: key, primaryKeyOf: key),
        .init("bsiz", "kSecAttrKeySizeInBits", .number, classes: key, primaryKeyOf: key),
        .init("esiz", "kSecAttrEffectiveKeySize", .number, classes: key, primaryKeyOf: key),
        .init("sdat", "kSecAttrStartDate", .date, classes: key),
        .init("edat", "kSecAttrEndDate", .date, classes: key),
        .init("perm", "kSecAttrIsPermanent", .number, classes: key),
        .init("priv", "kSecAttrIsPrivate", .number, classes: key),
        .init("modi", "kSecAttrIsModifiable", .number, classes: key),
        .init("sens", "kSecAttrIsSensitive", .number, classes: key),
        .init("asen", "kSecAttrWasAlwaysSensitive", .number, classes: key),
        .init("extr", "kSecAttrIsExtractable", .number, classes: key),
        .init("next", "kSecAttrWasNeverExtractable", .number, classes: key),
        .init("encr", "kSecAttrCanEncrypt", .number, classes: key),
        .init("decr", "kSecAttrCanDecrypt", .number, classes: key),
        .init("drve", "kSecAttrCanDerive", .number, classes: key),
        .init("sign", "kSecAttrCanSign", .number, classes: key),
        .init("vrfy", "kSecAttrCanVerify", .number, classes: key),
        .init("snrc", "kSecAttrCanSignRecover", .number, classes: key),
        .init("vyrc", "kSecAttrCanVerifyRecover", .number, classes: key),
        .init("wrap", "kSecAttrCanWrap", .number, classes: key),
        .init("unwp", "kSecAttrCanUnwrap", .number, classes: key),

        // Common primary-key members, last as in Apple's schema.
        .init("agrp", "kSecAttrAccessGroup", .string, classes: all, primaryKeyOf: all),
        .init("sync", "kSecAttrSynchronizable", .synchronizable, classes: all, primaryKeyOf: all),
        .init("tkid", "kSecAttrTokenID", .string, classes: all),
    ]

    private static let byName: [String: AttributeDescriptor] = Dictionary(
        uniqueKeysWithValues: attributes.map { ($0.name, $0) })

    private static let primaryKeys: [ItemClass: [AttributeDescriptor]] = Dictionary(
        uniqueKeysWithValues: ItemClass.allCases.map { itemClass in
            (itemClass, attributes.filter { $0.isPrimaryKey(of: itemClass) })
        })

    /// The attribute named `name` if `itemClass` has it (an identity has the attributes of
    /// certificates and keys).
    public static func attribute(_ name: String, in itemClass: ItemClass) -> AttributeDescriptor? {
        guard let attribute = byName[name] else { return nil }
        let bits = itemClass == .identity ? ItemClass.certificate.bit | ItemClass.key.bit : itemClass.bit
        return attribute.classBits & bits != 0 ? attribute : nil
    }

    /// The attribute named `name` in any class.
    public static func attribute(named name: String) -> AttributeDescriptor? { byName[name] }

    /// `itemClass`'s primary-key attributes, in catalog order.
    public static func primaryKey(of itemClass: ItemClass) -> [AttributeDescriptor] {
        primaryKeys[itemClass] ?? []
    }

    /// The attributes besides the primary key's that `itemClass`'s search index covers: the
    /// label, which users search by as often as by a key member.
    private static let searchIndexedBeyondPrimaryKey: Set<String> = ["labl"]

    private static let searchIndexed: [ItemClass: [AttributeDescriptor]] = Dictionary(
        uniqueKeysWithValues: ItemClass.allCases.map { itemClass in
            (itemClass, attributes.filter { attribute in
                guard AttributeCatalog.attribute(attribute.name, in: itemClass) != nil, attribute.kind != .synchronizable else { return false }
                return attribute.isPrimaryKey(of: itemClass) || searchIndexedBeyondPrimaryKey.contains(attribute.name)
            })
        })

    /// The attributes of `itemClass` whose values the search index holds as keyed tokens, in
    /// catalog order: every primary-key member but the synchronizable flag (a boolean: its
    /// index would select half the class), and the label. A query naming one of them is
    /// answered from the index; other attributes are checked on the rows it selects.
    public static func searchIndexed(of itemClass: ItemClass) -> [AttributeDescriptor] {
        searchIndexed[itemClass] ?? []
    }

    /// Every attribute `itemClass` has.
    public static func attributes(of itemClass: ItemClass) -> [AttributeDescriptor] {
        attributes.filter { attribute($0.name, in: itemClass) != nil }
    }
}
