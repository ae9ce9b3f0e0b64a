import CTSS2

/// A TPM operation that failed, with the TSS return code sorted into what the caller can do about
/// it. The description names the failing step and the TSS code's text only: never key material.
package struct TPMError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    package enum Kind: Equatable, Sendable {
        /// No TPM is configured, the TCTI cannot be opened, or the TPM went away during the call
        /// (connection refused, closed or timed out).
        case unavailable
        /// The TPM refused a key blob: it was made by another TPM or under another storage key,
        /// or it was altered (integrity check failed).
        case keyRejected
        /// A key blob or point that is not a P-256 key of the expected shape.
        case invalidInput
        /// The TPM refused an authorization value (counted toward its dictionary-attack lockout
        /// when the object is not noDA).
        case authorizationFailed
        /// The TPM is in dictionary-attack lockout: it refuses every authorization of objects
        /// that count failures, the right one too, until enough time has passed.
        case lockedOut
        /// Any other failure the TPM or the TSS reported.
        case failed
    }

    /// What went wrong.
    package let kind: Kind
    /// The TSS return code (0 when the failure was found before calling the TSS).
    package let code: UInt32
    /// The failing step and the code's text.
    package let description: String

    /// An error for `code` returned by `step`, sorted by the code's layer and value.
    package init(step: String, code: TSS2_RC) {
        self.code = code
        let text = CTSS2_RC_Decode(code).map { String(cString: $0) } ?? "unknown"
        description = "\(step) failed: 0x\(String(code, radix: 16)) \(text)"
        kind = Self.kind(of: code, step: step)
    }

    /// An error found before a TSS call.
    package init(_ kind: Kind, _ description: String) {
        self.kind = kind
        code = 0
        self.description = description
    }

    private static func kind(of code: TSS2_RC, step: String) -> Kind {
        if step == "open" { return .unavailable }
        let base = code & 0xFFFF
        let layer = code & 0xFF_0000
        guard layer != 0 else {
            // Format-one codes carry a parameter, handle or session number in their upper bits.
            if code & 0x80 != 0, [0x08E, 0x0A2].contains(code & 0xBF) { return .authorizationFailed }  // AUTH_FAIL, BAD_AUTH
            if code == 0x921 { return .lockedOut }  // TPM_RC_LOCKOUT
            return step == "load" ? .keyRejected : .failed
        }
        // A software layer (TCTI, SAPI, ESAPI, MU): its base codes say whether the TPM is reachable.
        switch base {
        case UInt32(TSS2_BASE_RC_IO_ERROR), UInt32(TSS2_BASE_RC_NO_CONNECTION), UInt32(TSS2_BASE_RC_TRY_AGAIN):
            return .unavailable
        default:
            return layer == 9 << 16 ? .invalidInput : .failed  // 9: TSS2_MU_RC_LAYER
        }
    }
}
