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
    fileprivate static let passwords: Set<ItemClass> = [.genericPassword, .internetPassword]
    fileprivate static let all: Set<ItemClass> = Set(ItemClass.stored)
    fileprivate static let inet: Set<ItemClass> = [.internetPassword]
    fileprivate static let cert: Set<ItemClass> = [.certificate]
    fileprivate static let key: Set<ItemClass> = [.key]

    /// Every attribute, in the order primary keys are composed.
    public static let attributes: [AttributeDescriptor] = checkedOrdinals([
        // Common to every class.
        .creationDate,
        .modificationDate,
        .label,
        .alias,
        .accessible,
        .accessControl,
        .sha1,

        // Passwords.
        .description,
        .comment,
        .creator,
        .type,
        .scriptCode,
        .isInvisible,
        .isNegative,
        .hasCustomIcon,
        .protected,
        .account,
        .service,
        .generic,
        .securityDomain,
        .server,
        .protocol,
        .authenticationType,
        .port,
        .path,

        // Certificates.
        .certificateType,
        .certificateEncoding,
        .subject,
        .issuer,
        .serialNumber,
        .subjectKeyID,
        .publicKeyHash,

        // Keys.
        .keyClass,
        .applicationLabel,
        .applicationTag,
        .keySizeInBits,
        .effectiveKeySize,
        .startDate,
        .endDate,
        .isPermanent,
        .isPrivate,
        .isModifiable,
        .isSensitive,
        .wasAlwaysSensitive,
        .isExtractable,
        .wasNeverExtractable,
        .canEncrypt,
        .canDecrypt,
        .canDerive,
        .canSign,
        .canVerify,
        .canSignRecover,
        .canVerifyRecover,
        .canWrap,
        .canUnwrap,

        // Common primary-key members, last as in Apple's schema.
        .accessGroup,
        .synchronizable,
        // The token a key lives in: part of a key's primary key (before the access group and
        // synchronizable flag, which end every primary key), so a token key and a software key
        // with the same other attributes are two items.
        .tokenID,
    ])

    /// The attributes a result carries besides the catalog's, which are never stored, accepted or
    /// searched: the tombstone flag and the multi-user identifier.
    public static let resultOnly: [AttributeDescriptor] = [.tombstone, .multiUser]

    /// Every descriptor, catalog and result-only, indexed by ordinal.
    public static let descriptors: [AttributeDescriptor] = checkedOrdinals(attributes + resultOnly)

    /// `descriptors` ordered by short name: the order the record codec writes entries in.
    static let descriptorsByName: [AttributeDescriptor] = descriptors.sorted { $0.name < $1.name }

    /// Checks that `list[i].ordinal == i` and that every ordinal fits `ItemAttributes`' 64-bit
    /// presence mask, so an ordinal indexes the catalog and a mask bit names one attribute.
    private static func checkedOrdinals(_ list: [AttributeDescriptor]) -> [AttributeDescriptor] {
        for (index, attribute) in list.enumerated() {
            precondition(attribute.ordinal == index, "attribute \(attribute.constant) has ordinal \(attribute.ordinal), not \(index)")
        }
        precondition(list.count <= 64, "ItemAttributes holds at most 64 descriptors")
        return list
    }

    private static let byName: [String: AttributeDescriptor] = Dictionary(
        uniqueKeysWithValues: attributes.map { ($0.name, $0) })

    private static let descriptorsByShortName: [String: AttributeDescriptor] = Dictionary(
        uniqueKeysWithValues: descriptors.map { ($0.name, $0) })

    /// The descriptor whose short name is `name`, including the result-only ones; for decoding
    /// stored records and building results, not for accepting a caller's attribute.
    public static func descriptor(named name: String) -> AttributeDescriptor? { descriptorsByShortName[name] }

    /// Each class's primary key, by `ItemClass.ordinal`.
    private static let primaryKeys: [[AttributeDescriptor]] = ItemClass.table { itemClass in
        let members = attributes.filter { $0.isPrimaryKey(of: itemClass) }
        let common: [AttributeDescriptor] = [.accessGroup, .synchronizable]
        return members.filter { !common.contains($0) } + members.filter { common.contains($0) }
    }

    /// The attribute named `name` if `itemClass` has it (an identity has the attributes of
    /// certificates and keys).
    public static func attribute(_ name: String, in itemClass: ItemClass) -> AttributeDescriptor? {
        guard let attribute = attribute(named: name) else { return nil }
        return attribute.belongs(to: itemClass) ? attribute : nil
    }

    /// The attribute named `name` in any class.
    public static func attribute(named name: String) -> AttributeDescriptor? {
        // Every SecItem call looks up each attribute it names: an ASCII name is found by its
        // four bytes in a sorted table, without hashing the string; other text (which may still
        // equal a name as a Swift string, by canonical equivalence) through the dictionary.
        guard let code = asciiCode(name) else { return byName[name] }
        var low = 0
        var high = byCode.count
        while low < high {
            let middle = (low + high) / 2
            let entry = byCode[middle]
            if entry.code == code { return entry.attribute }
            if entry.code < code { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// `attributes` by their short names' four bytes, in ascending order.
    private static let byCode: [(code: UInt32, attribute: AttributeDescriptor)] = attributes.map { attribute in
        guard let code = asciiCode(attribute.name) else { preconditionFailure("\(attribute.constant)'s short name is not four ASCII bytes") }
        return (code, attribute)
    }.sorted { $0.code < $1.code }

    /// The four bytes of a name of four ASCII characters, as one number; nil for any other name.
    private static func asciiCode(_ name: String) -> UInt32? {
        let bytes = name.utf8
        guard bytes.count == 4 else { return nil }
        if let code = bytes.withContiguousStorageIfAvailable({ code(of: $0) }) { return code }
        return code(of: Array(bytes))
    }

    /// `asciiCode` of four bytes.
    private static func code<Bytes: RandomAccessCollection<UInt8>>(of bytes: Bytes) -> UInt32? where Bytes.Index == Int {
        let (a, b, c, d) = (bytes[bytes.startIndex], bytes[bytes.startIndex + 1], bytes[bytes.startIndex + 2], bytes[bytes.startIndex + 3])
        guard (a | b | c | d) < 0x80 else { return nil }
        return UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
    }

    /// `itemClass`'s primary-key attributes, in catalog order but for the access group and the
    /// synchronizable flag, which come last.
    public static func primaryKey(of itemClass: ItemClass) -> [AttributeDescriptor] {
        primaryKeys[itemClass.ordinal]
    }

    /// The attributes besides the primary key's that `itemClass`'s search index covers: the
    /// label, which users search by as often as by a key member.
    private static let searchIndexedBeyondPrimaryKey: [AttributeDescriptor] = [.label]

    private static let searchIndexed: [ItemClass: [AttributeDescriptor]] = Dictionary(
        uniqueKeysWithValues: ItemClass.allCases.map { itemClass in
            (itemClass, attributes.filter { attribute in
                guard attribute.belongs(to: itemClass), attribute.kind != .synchronizable else { return false }
                return attribute.isPrimaryKey(of: itemClass) || searchIndexedBeyondPrimaryKey.contains(attribute)
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
        attributes.filter { $0.belongs(to: itemClass) }
    }
}

/// The catalog's attributes by their Swift names (from Apple's `kSecAttr…` constants): the one place
/// that spells their short names. Code names an attribute `.accessGroup`, never by its short name.
extension AttributeDescriptor {
    /// `kSecAttrCreationDate`.
    public static let creationDate = AttributeDescriptor(0, "cdat", "kSecAttrCreationDate", .date, classes: AttributeCatalog.all, maintainer: .system)
    /// `kSecAttrModificationDate`.
    public static let modificationDate = AttributeDescriptor(1, "mdat", "kSecAttrModificationDate", .date, classes: AttributeCatalog.all, maintainer: .system)
    /// `kSecAttrLabel`.
    public static let label = AttributeDescriptor(2, "labl", "kSecAttrLabel", .blob, classes: AttributeCatalog.all)
    /// `kSecAttrAlias`.
    public static let alias = AttributeDescriptor(3, "alis", "kSecAttrAlias", .blob, classes: AttributeCatalog.all)
    /// `kSecAttrAccessible`.
    public static let accessible = AttributeDescriptor(4, "pdmn", "kSecAttrAccessible", .protection, classes: AttributeCatalog.all)
    /// `kSecAttrAccessControl`.
    public static let accessControl = AttributeDescriptor(5, "accc", "kSecAttrAccessControl", .accessControl, classes: AttributeCatalog.all)
    /// `kSecAttrSHA1`.
    public static let sha1 = AttributeDescriptor(6, "sha1", "kSecAttrSHA1", .digest, classes: AttributeCatalog.all, maintainer: .computed)
    /// `kSecAttrDescription`.
    public static let description = AttributeDescriptor(7, "desc", "kSecAttrDescription", .blob, classes: AttributeCatalog.passwords)
    /// `kSecAttrComment`.
    public static let comment = AttributeDescriptor(8, "icmt", "kSecAttrComment", .blob, classes: AttributeCatalog.passwords)
    /// `kSecAttrCreator`.
    public static let creator = AttributeDescriptor(9, "crtr", "kSecAttrCreator", .number, classes: AttributeCatalog.passwords.union(AttributeCatalog.key))
    /// `kSecAttrType`.
    public static let type = AttributeDescriptor(10, "type", "kSecAttrType", .number, classes: AttributeCatalog.passwords.union(AttributeCatalog.key), primaryKeyOf: AttributeCatalog.key)
    /// `kSecAttrScriptCode`.
    public static let scriptCode = AttributeDescriptor(11, "scrp", "kSecAttrScriptCode", .number, classes: AttributeCatalog.passwords)
    /// `kSecAttrIsInvisible`.
    public static let isInvisible = AttributeDescriptor(12, "invi", "kSecAttrIsInvisible", .number, classes: AttributeCatalog.passwords)
    /// `kSecAttrIsNegative`.
    public static let isNegative = AttributeDescriptor(13, "nega", "kSecAttrIsNegative", .number, classes: AttributeCatalog.passwords)
    /// `kSecAttrHasCustomIcon`.
    public static let hasCustomIcon = AttributeDescriptor(14, "cusi", "kSecAttrHasCustomIcon", .number, classes: AttributeCatalog.passwords)
    /// `kSecAttrProtected`.
    public static let protected = AttributeDescriptor(15, "prot", "kSecAttrProtected", .blob, classes: AttributeCatalog.passwords)
    /// `kSecAttrAccount`.
    public static let account = AttributeDescriptor(16, "acct", "kSecAttrAccount", .blob, classes: AttributeCatalog.passwords, primaryKeyOf: AttributeCatalog.passwords)
    /// `kSecAttrService`.
    public static let service = AttributeDescriptor(17, "svce", "kSecAttrService", .blob, classes: [.genericPassword], primaryKeyOf: [.genericPassword])
    /// `kSecAttrGeneric`.
    public static let generic = AttributeDescriptor(18, "gena", "kSecAttrGeneric", .blob, classes: [.genericPassword])
    /// `kSecAttrSecurityDomain`.
    public static let securityDomain = AttributeDescriptor(19, "sdmn", "kSecAttrSecurityDomain", .blob, classes: AttributeCatalog.inet, primaryKeyOf: AttributeCatalog.inet)
    /// `kSecAttrServer`.
    public static let server = AttributeDescriptor(20, "srvr", "kSecAttrServer", .blob, classes: AttributeCatalog.inet, primaryKeyOf: AttributeCatalog.inet)
    /// `kSecAttrProtocol`.
    public static let `protocol` = AttributeDescriptor(21, "ptcl", "kSecAttrProtocol", .number, classes: AttributeCatalog.inet, primaryKeyOf: AttributeCatalog.inet)
    /// `kSecAttrAuthenticationType`.
    public static let authenticationType = AttributeDescriptor(22, "atyp", "kSecAttrAuthenticationType", .blob, classes: AttributeCatalog.inet, primaryKeyOf: AttributeCatalog.inet)
    /// `kSecAttrPort`.
    public static let port = AttributeDescriptor(23, "port", "kSecAttrPort", .number, classes: AttributeCatalog.inet, primaryKeyOf: AttributeCatalog.inet)
    /// `kSecAttrPath`.
    public static let path = AttributeDescriptor(24, "path", "kSecAttrPath", .blob, classes: AttributeCatalog.inet, primaryKeyOf: AttributeCatalog.inet)
    /// `kSecAttrCertificateType`.
    public static let certificateType = AttributeDescriptor(25, "ctyp", "kSecAttrCertificateType", .number, classes: AttributeCatalog.cert, primaryKeyOf: AttributeCatalog.cert)
    /// `kSecAttrCertificateEncoding`.
    public static let certificateEncoding = AttributeDescriptor(26, "cenc", "kSecAttrCertificateEncoding", .number, classes: AttributeCatalog.cert)
    /// `kSecAttrSubject`.
    public static let subject = AttributeDescriptor(27, "subj", "kSecAttrSubject", .data, classes: AttributeCatalog.cert)
    /// `kSecAttrIssuer`.
    public static let issuer = AttributeDescriptor(28, "issr", "kSecAttrIssuer", .data, classes: AttributeCatalog.cert, primaryKeyOf: AttributeCatalog.cert)
    /// `kSecAttrSerialNumber`.
    public static let serialNumber = AttributeDescriptor(29, "slnr", "kSecAttrSerialNumber", .data, classes: AttributeCatalog.cert, primaryKeyOf: AttributeCatalog.cert)
    /// `kSecAttrSubjectKeyID`.
    public static let subjectKeyID = AttributeDescriptor(30, "skid", "kSecAttrSubjectKeyID", .data, classes: AttributeCatalog.cert)
    /// `kSecAttrPublicKeyHash`.
    public static let publicKeyHash = AttributeDescriptor(31, "pkhh", "kSecAttrPublicKeyHash", .data, classes: AttributeCatalog.cert)
    /// `kSecAttrKeyClass`.
    public static let keyClass = AttributeDescriptor(32, "kcls", "kSecAttrKeyClass", .number, classes: AttributeCatalog.key, primaryKeyOf: AttributeCatalog.key)
    /// `kSecAttrApplicationLabel`.
    public static let applicationLabel = AttributeDescriptor(33, "klbl", "kSecAttrApplicationLabel", .data, classes: AttributeCatalog.key, primaryKeyOf: AttributeCatalog.key)
    /// `kSecAttrApplicationTag`.
    public static let applicationTag = AttributeDescriptor(34, "atag", "kSecAttrApplicationTag", .blob, classes: AttributeCatalog.key, primaryKeyOf: AttributeCatalog.key)
    /// `kSecAttrKeySizeInBits`.
    public static let keySizeInBits = AttributeDescriptor(35, "bsiz", "kSecAttrKeySizeInBits", .number, classes: AttributeCatalog.key, primaryKeyOf: AttributeCatalog.key)
    /// `kSecAttrEffectiveKeySize`.
    public static let effectiveKeySize = AttributeDescriptor(36, "esiz", "kSecAttrEffectiveKeySize", .number, classes: AttributeCatalog.key, primaryKeyOf: AttributeCatalog.key)
    /// `kSecAttrStartDate`.
    public static let startDate = AttributeDescriptor(37, "sdat", "kSecAttrStartDate", .date, classes: AttributeCatalog.key)
    /// `kSecAttrEndDate`.
    public static let endDate = AttributeDescriptor(38, "edat", "kSecAttrEndDate", .date, classes: AttributeCatalog.key)
    /// `kSecAttrIsPermanent`.
    public static let isPermanent = AttributeDescriptor(39, "perm", "kSecAttrIsPermanent", .number, classes: AttributeCatalog.key)
    /// `kSecAttrIsPrivate`.
    public static let isPrivate = AttributeDescriptor(40, "priv", "kSecAttrIsPrivate", .number, classes: AttributeCatalog.key)
    /// `kSecAttrIsModifiable`.
    public static let isModifiable = AttributeDescriptor(41, "modi", "kSecAttrIsModifiable", .number, classes: AttributeCatalog.key)
    /// `kSecAttrIsSensitive`.
    public static let isSensitive = AttributeDescriptor(42, "sens", "kSecAttrIsSensitive", .number, classes: AttributeCatalog.key)
    /// `kSecAttrWasAlwaysSensitive`.
    public static let wasAlwaysSensitive = AttributeDescriptor(43, "asen", "kSecAttrWasAlwaysSensitive", .number, classes: AttributeCatalog.key)
    /// `kSecAttrIsExtractable`.
    public static let isExtractable = AttributeDescriptor(44, "extr", "kSecAttrIsExtractable", .number, classes: AttributeCatalog.key)
    /// `kSecAttrWasNeverExtractable`.
    public static let wasNeverExtractable = AttributeDescriptor(45, "next", "kSecAttrWasNeverExtractable", .number, classes: AttributeCatalog.key)
    /// `kSecAttrCanEncrypt`.
    public static let canEncrypt = AttributeDescriptor(46, "encr", "kSecAttrCanEncrypt", .number, classes: AttributeCatalog.key)
    /// `kSecAttrCanDecrypt`.
    public static let canDecrypt = AttributeDescriptor(47, "decr", "kSecAttrCanDecrypt", .number, classes: AttributeCatalog.key)
    /// `kSecAttrCanDerive`.
    public static let canDerive = AttributeDescriptor(48, "drve", "kSecAttrCanDerive", .number, classes: AttributeCatalog.key)
    /// `kSecAttrCanSign`.
    public static let canSign = AttributeDescriptor(49, "sign", "kSecAttrCanSign", .number, classes: AttributeCatalog.key)
    /// `kSecAttrCanVerify`.
    public static let canVerify = AttributeDescriptor(50, "vrfy", "kSecAttrCanVerify", .number, classes: AttributeCatalog.key)
    /// `kSecAttrCanSignRecover`.
    public static let canSignRecover = AttributeDescriptor(51, "snrc", "kSecAttrCanSignRecover", .number, classes: AttributeCatalog.key)
    /// `kSecAttrCanVerifyRecover`.
    public static let canVerifyRecover = AttributeDescriptor(52, "vyrc", "kSecAttrCanVerifyRecover", .number, classes: AttributeCatalog.key)
    /// `kSecAttrCanWrap`.
    public static let canWrap = AttributeDescriptor(53, "wrap", "kSecAttrCanWrap", .number, classes: AttributeCatalog.key)
    /// `kSecAttrCanUnwrap`.
    public static let canUnwrap = AttributeDescriptor(54, "unwp", "kSecAttrCanUnwrap", .number, classes: AttributeCatalog.key)
    /// `kSecAttrAccessGroup`.
    public static let accessGroup = AttributeDescriptor(55, "agrp", "kSecAttrAccessGroup", .string, classes: AttributeCatalog.all, primaryKeyOf: AttributeCatalog.all)
    /// `kSecAttrSynchronizable`.
    public static let synchronizable = AttributeDescriptor(56, "sync", "kSecAttrSynchronizable", .synchronizable, classes: AttributeCatalog.all, primaryKeyOf: AttributeCatalog.all)
    /// `kSecAttrTokenID`.
    public static let tokenID = AttributeDescriptor(57, "tkid", "kSecAttrTokenID", .string, classes: AttributeCatalog.all, primaryKeyOf: AttributeCatalog.key)

    /// `kSecAttrTombstone`: returned with an item's attributes (always 0), never stored or searched.
    public static let tombstone = AttributeDescriptor(58, "tomb", "kSecAttrTombstone", .number, classes: AttributeCatalog.all, maintainer: .system)
    /// `kSecAttrMultiUser`: returned with an item's attributes (always empty data), never stored or searched.
    public static let multiUser = AttributeDescriptor(59, "musr", "kSecAttrMultiUser", .data, classes: AttributeCatalog.all, maintainer: .system)
}
