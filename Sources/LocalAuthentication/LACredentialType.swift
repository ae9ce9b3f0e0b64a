/// A credential an app hands a context (`LACredentialType`), with Apple's raw values.
public enum LACredentialType: Int, Sendable, Hashable {
    /// The password of an item protected with `SecAccessControlCreateFlags.applicationPassword`.
    case applicationPassword = 0
    /// A smart card's PIN (not supported here: `setCredential` refuses it).
    case smartCardPIN = -3
}

/// The longest `LAContext.touchIDAuthenticationAllowableReuseDuration`: five minutes.
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: Double = 300
