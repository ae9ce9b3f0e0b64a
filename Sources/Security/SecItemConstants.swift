// The public `kSec…` constants with Apple's string values (`OSX/sec/Security/SecItemConstants.c`).
// Code compares dictionaries by these raw strings, so each value is Apple's exactly.

// MARK: - Item class key and values

/// The item class key of every SecItem dictionary.
nonisolated(unsafe) public let kSecClass: CFString = "class"
/// Generic passwords: app secrets, tokens, raw key bytes.
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
/// Internet passwords: website logins.
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = "inet"
/// X.509 certificates.
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
/// Cryptographic keys.
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
/// Identities: a certificate joined with its private key (not stored).
nonisolated(unsafe) public let kSecClassIdentity: CFString = "idnt"

// MARK: - Attribute keys

/// When the item's secret may be read (`kSecAttrAccessible…` values).
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
/// A `SecAccessControl` (exclusive with `kSecAttrAccessible`).
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
/// The item's access group.
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
/// Whether the item syncs between devices.
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "sync"
/// Creation date (maintained by the keychain).
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = "cdat"
/// Modification date (maintained by the keychain).
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = "mdat"
/// A user-visible description.
nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
/// A user-editable comment.
nonisolated(unsafe) public let kSecAttrComment: CFString = "icmt"
/// The creator, a FourCharCode number.
nonisolated(unsafe) public let kSecAttrCreator: CFString = "crtr"
/// The item type, a FourCharCode number.
nonisolated(unsafe) public let kSecAttrType: CFString = "type"
/// A user-visible label.
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
/// Whether the item is hidden from user interfaces.
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = "invi"
/// Whether the item is a placeholder without a valid password.
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = "nega"
/// The account name (primary key of both password classes).
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
/// The service (primary key of generic passwords).
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
/// User-defined data; filters searches, never makes items unique.
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
/// The security domain, e.g. an HTTP realm.
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = "sdmn"
/// The server's host name.
nonisolated(unsafe) public let kSecAttrServer: CFString = "srvr"
/// The protocol (`kSecAttrProtocol…` values).
nonisolated(unsafe) public let kSecAttrProtocol: CFString = "ptcl"
/// The authentication scheme (`kSecAttrAuthenticationType…` values).
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = "atyp"
/// The port number.
nonisolated(unsafe) public let kSecAttrPort: CFString = "port"
/// The path on the server.
nonisolated(unsafe) public let kSecAttrPath: CFString = "path"
/// A certificate's subject (DER).
nonisolated(unsafe) public let kSecAttrSubject: CFString = "subj"
/// A certificate's issuer (DER).
nonisolated(unsafe) public let kSecAttrIssuer: CFString = "issr"
/// A certificate's serial number.
nonisolated(unsafe) public let kSecAttrSerialNumber: CFString = "slnr"
/// A certificate's subject key identifier.
nonisolated(unsafe) public let kSecAttrSubjectKeyID: CFString = "skid"
/// SHA-1 of a certificate's public key.
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = "pkhh"
/// A certificate's type.
nonisolated(unsafe) public let kSecAttrCertificateType: CFString = "ctyp"
/// A certificate's encoding.
nonisolated(unsafe) public let kSecAttrCertificateEncoding: CFString = "cenc"
/// A key's class (`kSecAttrKeyClass…` values).
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kcls"
/// SHA-1 of a key's public key, computed by the keychain.
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = "klbl"
/// Whether a generated key is stored.
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = "perm"
/// Whether a key is sensitive.
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = "sens"
/// Whether a key may be exported.
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = "extr"
/// An application-defined tag to look keys up by.
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = "atag"
/// A key's algorithm (`kSecAttrKeyType…` values).
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type"
/// A key's size in bits.
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = "bsiz"
/// A key's effective size in bits.
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = "esiz"
/// Whether a key can encrypt.
nonisolated(unsafe) public let kSecAttrCanEncrypt: CFString = "encr"
/// Whether a key can decrypt.
nonisolated(unsafe) public let kSecAttrCanDecrypt: CFString = "decr"
/// Whether a key can derive other keys.
nonisolated(unsafe) public let kSecAttrCanDerive: CFString = "drve"
/// Whether a key can sign.
nonisolated(unsafe) public let kSecAttrCanSign: CFString = "sign"
/// Whether a key can verify.
nonisolated(unsafe) public let kSecAttrCanVerify: CFString = "vrfy"
/// Whether a key can wrap other keys.
nonisolated(unsafe) public let kSecAttrCanWrap: CFString = "wrap"
/// Whether a key can unwrap other keys.
nonisolated(unsafe) public let kSecAttrCanUnwrap: CFString = "unwp"
/// Whether a key is private.
nonisolated(unsafe) public let kSecAttrIsPrivate: CFString = "priv"
/// Whether a key's attributes may change.
nonisolated(unsafe) public let kSecAttrIsModifiable: CFString = "modi"
/// Whether a key was always sensitive.
nonisolated(unsafe) public let kSecAttrWasAlwaysSensitive: CFString = "asen"
/// Whether a key was never extractable.
nonisolated(unsafe) public let kSecAttrWasNeverExtractable: CFString = "next"
/// Whether a key can sign with recovery.
nonisolated(unsafe) public let kSecAttrCanSignRecover: CFString = "snrc"
/// Whether a key can verify with recovery.
nonisolated(unsafe) public let kSecAttrCanVerifyRecover: CFString = "vyrc"
/// A key's validity start.
nonisolated(unsafe) public let kSecAttrStartDate: CFString = "sdat"
/// A key's validity end.
nonisolated(unsafe) public let kSecAttrEndDate: CFString = "edat"
/// A key's creator.
nonisolated(unsafe) public let kSecAttrKeyCreator: CFString = "crtr"
/// An alias (e.g. a certificate's email address).
nonisolated(unsafe) public let kSecAttrAlias: CFString = "alis"
/// Whether the item has a custom icon (macOS).
nonisolated(unsafe) public let kSecAttrHasCustomIcon: CFString = "cusi"
/// The script code of the item's strings (macOS).
nonisolated(unsafe) public let kSecAttrScriptCode: CFString = "scrp"
/// A sync view hint.
nonisolated(unsafe) public let kSecAttrSyncViewHint: CFString = "vwht"
/// The token holding a key (`kSecAttrTokenIDSecureEnclave`).
nonisolated(unsafe) public let kSecAttrTokenID: CFString = "tkid"
/// The persistent reference attribute (reserved).
nonisolated(unsafe) public let kSecAttrPersistentReference: CFString = "persistref"
/// Misspelled alias of `kSecAttrPersistentReference`, as Apple ships it.
nonisolated(unsafe) public let kSecAttrPersistantReference: CFString = "persistref"
/// An AppleShare volume (macOS file keychain only).
nonisolated(unsafe) public let kSecAttrVolume: CFString = "volm"
/// An AppleShare address (macOS file keychain only).
nonisolated(unsafe) public let kSecAttrAddress: CFString = "addr"
/// An AFP server signature (macOS file keychain only).
nonisolated(unsafe) public let kSecAttrAFPServerSignature: CFString = "afps"

// MARK: - kSecAttrAccessible values

/// Readable while unlocked; migrates (the default).
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// Readable after the first unlock until restart; migrates.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Always readable (deprecated by Apple).
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "dk"
/// Readable while unlocked, only with a passcode set; never leaves the device.
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// Readable while unlocked; never leaves the device.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// Readable after the first unlock; never leaves the device.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// Always readable; never leaves the device (deprecated by Apple).
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"

// MARK: - kSecAttrSynchronizable values

/// In a search: match synchronizable and non-synchronizable items.
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "syna"

// MARK: - kSecAttrProtocol values

/// `kSecAttrProtocolFTP`: `"ftp "`.
nonisolated(unsafe) public let kSecAttrProtocolFTP: CFString = "ftp "
/// `kSecAttrProtocolFTPAccount`: `"ftpa"`.
nonisolated(unsafe) public let kSecAttrProtocolFTPAccount: CFString = "ftpa"
/// `kSecAttrProtocolHTTP`: `"http"`.
nonisolated(unsafe) public let kSecAttrProtocolHTTP: CFString = "http"
/// `kSecAttrProtocolIRC`: `"irc "`.
nonisolated(unsafe) public let kSecAttrProtocolIRC: CFString = "irc "
/// `kSecAttrProtocolNNTP`: `"nntp"`.
nonisolated(unsafe) public let kSecAttrProtocolNNTP: CFString = "nntp"
/// `kSecAttrProtocolPOP3`: `"pop3"`.
nonisolated(unsafe) public let kSecAttrProtocolPOP3: CFString = "pop3"
/// `kSecAttrProtocolSMTP`: `"smtp"`.
nonisolated(unsafe) public let kSecAttrProtocolSMTP: CFString = "smtp"
/// `kSecAttrProtocolSOCKS`: `"sox "`.
nonisolated(unsafe) public let kSecAttrProtocolSOCKS: CFString = "sox "
/// `kSecAttrProtocolIMAP`: `"imap"`.
nonisolated(unsafe) public let kSecAttrProtocolIMAP: CFString = "imap"
/// `kSecAttrProtocolLDAP`: `"ldap"`.
nonisolated(unsafe) public let kSecAttrProtocolLDAP: CFString = "ldap"
/// `kSecAttrProtocolAppleTalk`: `"atlk"`.
nonisolated(unsafe) public let kSecAttrProtocolAppleTalk: CFString = "atlk"
/// `kSecAttrProtocolAFP`: `"afp "`.
nonisolated(unsafe) public let kSecAttrProtocolAFP: CFString = "afp "
/// `kSecAttrProtocolTelnet`: `"teln"`.
nonisolated(unsafe) public let kSecAttrProtocolTelnet: CFString = "teln"
/// `kSecAttrProtocolSSH`: `"ssh "`.
nonisolated(unsafe) public let kSecAttrProtocolSSH: CFString = "ssh "
/// `kSecAttrProtocolFTPS`: `"ftps"`.
nonisolated(unsafe) public let kSecAttrProtocolFTPS: CFString = "ftps"
/// `kSecAttrProtocolHTTPS`: `"htps"`.
nonisolated(unsafe) public let kSecAttrProtocolHTTPS: CFString = "htps"
/// `kSecAttrProtocolHTTPProxy`: `"htpx"`.
nonisolated(unsafe) public let kSecAttrProtocolHTTPProxy: CFString = "htpx"
/// `kSecAttrProtocolHTTPSProxy`: `"htsx"`.
nonisolated(unsafe) public let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
/// `kSecAttrProtocolFTPProxy`: `"ftpx"`.
nonisolated(unsafe) public let kSecAttrProtocolFTPProxy: CFString = "ftpx"
/// `kSecAttrProtocolSMB`: `"smb "`.
nonisolated(unsafe) public let kSecAttrProtocolSMB: CFString = "smb "
/// `kSecAttrProtocolRTSP`: `"rtsp"`.
nonisolated(unsafe) public let kSecAttrProtocolRTSP: CFString = "rtsp"
/// `kSecAttrProtocolRTSPProxy`: `"rtsx"`.
nonisolated(unsafe) public let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
/// `kSecAttrProtocolDAAP`: `"daap"`.
nonisolated(unsafe) public let kSecAttrProtocolDAAP: CFString = "daap"
/// `kSecAttrProtocolEPPC`: `"eppc"`.
nonisolated(unsafe) public let kSecAttrProtocolEPPC: CFString = "eppc"
/// `kSecAttrProtocolIPP`: `"ipp "`.
nonisolated(unsafe) public let kSecAttrProtocolIPP: CFString = "ipp "
/// `kSecAttrProtocolNNTPS`: `"ntps"`.
nonisolated(unsafe) public let kSecAttrProtocolNNTPS: CFString = "ntps"
/// `kSecAttrProtocolLDAPS`: `"ldps"`.
nonisolated(unsafe) public let kSecAttrProtocolLDAPS: CFString = "ldps"
/// `kSecAttrProtocolTelnetS`: `"tels"`.
nonisolated(unsafe) public let kSecAttrProtocolTelnetS: CFString = "tels"
/// `kSecAttrProtocolIMAPS`: `"imps"`.
nonisolated(unsafe) public let kSecAttrProtocolIMAPS: CFString = "imps"
/// `kSecAttrProtocolIRCS`: `"ircs"`.
nonisolated(unsafe) public let kSecAttrProtocolIRCS: CFString = "ircs"
/// `kSecAttrProtocolPOP3S`: `"pops"`.
nonisolated(unsafe) public let kSecAttrProtocolPOP3S: CFString = "pops"

// MARK: - kSecAttrAuthenticationType values

/// `kSecAttrAuthenticationTypeNTLM`: `"ntlm"`.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
/// `kSecAttrAuthenticationTypeMSN`: `"msna"`.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeMSN: CFString = "msna"
/// `kSecAttrAuthenticationTypeDPA`: `"dpaa"`.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDPA: CFString = "dpaa"
/// `kSecAttrAuthenticationTypeRPA`: `"rpaa"`.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeRPA: CFString = "rpaa"
/// `kSecAttrAuthenticationTypeHTTPBasic`: `"http"`.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
/// `kSecAttrAuthenticationTypeHTTPDigest`: `"httd"`.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
/// `kSecAttrAuthenticationTypeHTMLForm`: `"form"`.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
/// `kSecAttrAuthenticationTypeDefault`: `"dflt"`.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"

// MARK: - kSecAttrKeyClass values

/// A public key.
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = "0"
/// A private key.
nonisolated(unsafe) public let kSecAttrKeyClassPrivate: CFString = "1"
/// A symmetric key.
nonisolated(unsafe) public let kSecAttrKeyClassSymmetric: CFString = "2"

// MARK: - kSecAttrKeyType values

/// RSA.
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "42"
/// Elliptic curve (same value as `kSecAttrKeyTypeECSECPrimeRandom`).
nonisolated(unsafe) public let kSecAttrKeyTypeEC: CFString = "73"
/// Elliptic curve over a prime field (P-256, P-384, P-521).
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// Ed25519.
nonisolated(unsafe) public let kSecAttrKeyTypeEd25519: CFString = "105"
/// X25519.
nonisolated(unsafe) public let kSecAttrKeyTypeX25519: CFString = "106"
/// Ed448.
nonisolated(unsafe) public let kSecAttrKeyTypeEd448: CFString = "107"
/// X448.
nonisolated(unsafe) public let kSecAttrKeyTypeX448: CFString = "108"

// MARK: - kSecAttrTokenID values and predefined access groups

/// The Secure Enclave (a TPM here, in a later release).
nonisolated(unsafe) public let kSecAttrTokenIDSecureEnclave: CFString = "com.apple.setoken"
/// The read-only access group of token items.
nonisolated(unsafe) public let kSecAttrAccessGroupToken: CFString = "com.apple.token"

// MARK: - Search keys

/// `kSecMatchPolicy`: `"m_Policy"`.
nonisolated(unsafe) public let kSecMatchPolicy: CFString = "m_Policy"
/// `kSecMatchItemList`: `"m_ItemList"`.
nonisolated(unsafe) public let kSecMatchItemList: CFString = "m_ItemList"
/// `kSecMatchSearchList`: `"m_SearchList"`.
nonisolated(unsafe) public let kSecMatchSearchList: CFString = "m_SearchList"
/// `kSecMatchIssuers`: `"m_Issuers"`.
nonisolated(unsafe) public let kSecMatchIssuers: CFString = "m_Issuers"
/// `kSecMatchEmailAddressIfPresent`: `"m_EmailAddressIfPresent"`.
nonisolated(unsafe) public let kSecMatchEmailAddressIfPresent: CFString = "m_EmailAddressIfPresent"
/// `kSecMatchSubjectContains`: `"m_SubjectContains"`.
nonisolated(unsafe) public let kSecMatchSubjectContains: CFString = "m_SubjectContains"
/// `kSecMatchSubjectStartsWith`: `"m_SubjectStartsWith"`.
nonisolated(unsafe) public let kSecMatchSubjectStartsWith: CFString = "m_SubjectStartsWith"
/// `kSecMatchSubjectEndsWith`: `"m_SubjectEndsWith"`.
nonisolated(unsafe) public let kSecMatchSubjectEndsWith: CFString = "m_SubjectEndsWith"
/// `kSecMatchSubjectWholeString`: `"m_SubjectWholeString"`.
nonisolated(unsafe) public let kSecMatchSubjectWholeString: CFString = "m_SubjectWholeString"
/// Compare string attributes case-insensitively.
nonisolated(unsafe) public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"
/// `kSecMatchDiacriticInsensitive`: `"m_DiacriticInsensitive"`.
nonisolated(unsafe) public let kSecMatchDiacriticInsensitive: CFString = "m_DiacriticInsensitive"
/// `kSecMatchWidthInsensitive`: `"m_WidthInsensitive"`.
nonisolated(unsafe) public let kSecMatchWidthInsensitive: CFString = "m_WidthInsensitive"
/// `kSecMatchTrustedOnly`: `"m_TrustedOnly"`.
nonisolated(unsafe) public let kSecMatchTrustedOnly: CFString = "m_TrustedOnly"
/// `kSecMatchValidOnDate`: `"m_ValidOnDate"`.
nonisolated(unsafe) public let kSecMatchValidOnDate: CFString = "m_ValidOnDate"
/// Internet passwords whose server is the host or a subdomain of it.
nonisolated(unsafe) public let kSecMatchHostOrSubdomainOfHost: CFString = "m_HostOrSubdomainOfHost"
/// How many items a search returns (default one).
nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
/// Return one item, as a single object.
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// Return every match, as an array.
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"

// MARK: - Return keys

/// Return the secret as `CFData`.
nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
/// Return the attributes as a dictionary.
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "r_Attributes"
/// Return a `SecKey`, `SecCertificate` or `SecIdentity`.
nonisolated(unsafe) public let kSecReturnRef: CFString = "r_Ref"
/// Return a persistent reference (`CFData`).
nonisolated(unsafe) public let kSecReturnPersistentRef: CFString = "r_PersistentRef"

// MARK: - Value keys

/// The secret, as `CFData`.
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
/// A `SecKey`, `SecCertificate` or `SecIdentity`.
nonisolated(unsafe) public let kSecValueRef: CFString = "v_Ref"
/// A persistent reference.
nonisolated(unsafe) public let kSecValuePersistentRef: CFString = "v_PersistentRef"

// MARK: - Other keys

/// `kSecUseItemList`: `"u_ItemList"`.
nonisolated(unsafe) public let kSecUseItemList: CFString = "u_ItemList"
/// `kSecUseKeychain`: `"u_Keychain"`.
nonisolated(unsafe) public let kSecUseKeychain: CFString = "u_Keychain"
/// The reason shown when authentication is needed (deprecated by Apple).
nonisolated(unsafe) public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// Fail instead of prompting (deprecated by Apple).
nonisolated(unsafe) public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"
/// Whether authentication UI may appear (`kSecUseAuthenticationUI…` values).
nonisolated(unsafe) public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// `kSecUseAuthenticationUIAllow`: `"u_AuthUIA"`.
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// `kSecUseAuthenticationUIFail`: `"u_AuthUIF"`.
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
/// `kSecUseAuthenticationUISkip`: `"u_AuthUIS"`.
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
/// An `LAContext` to authenticate with.
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
/// Accepted and ignored: this keychain always has data-protection semantics.
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"
/// `kSecUseUserIndependentKeychain`: `"u_UserIndependentKeychain"`.
nonisolated(unsafe) public let kSecUseUserIndependentKeychain: CFString = "u_UserIndependentKeychain"
/// Attributes of the private key in `SecKeyCreateRandomKey` parameters.
nonisolated(unsafe) public let kSecPrivateKeyAttrs: CFString = "private"
/// Attributes of the public key in `SecKeyCreateRandomKey` parameters.
nonisolated(unsafe) public let kSecPublicKeyAttrs: CFString = "public"

// MARK: - SecPKCS12Import keys

/// The PKCS#12 password.
nonisolated(unsafe) public let kSecImportExportPassphrase: CFString = "passphrase"
/// `kSecImportExportKeychain`: `"keychain"`.
nonisolated(unsafe) public let kSecImportExportKeychain: CFString = "keychain"
/// `kSecImportExportAccess`: `"access"`.
nonisolated(unsafe) public let kSecImportExportAccess: CFString = "access"
/// `kSecImportItemLabel`: `"label"`.
nonisolated(unsafe) public let kSecImportItemLabel: CFString = "label"
/// `kSecImportItemKeyID`: `"keyid"`.
nonisolated(unsafe) public let kSecImportItemKeyID: CFString = "keyid"
/// `kSecImportItemTrust`: `"trust"`.
nonisolated(unsafe) public let kSecImportItemTrust: CFString = "trust"
/// `kSecImportItemCertChain`: `"chain"`.
nonisolated(unsafe) public let kSecImportItemCertChain: CFString = "chain"
/// `kSecImportItemIdentity`: `"identity"`.
nonisolated(unsafe) public let kSecImportItemIdentity: CFString = "identity"
