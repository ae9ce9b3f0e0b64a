/// A failed or refused OpenSSL operation, in the words its callers decide by.
///
/// It stays with the code that calls OpenSSL: the engine turns it into its own error where it
/// calls this module. A reason names the call or the rule broken, never key material or input
/// bytes.
package struct OpenSSLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure it is.
    package enum Kind: Equatable, Sendable {
        /// Sealed data did not authenticate under its key, nonce and additional data.
        case authenticationFailed
        /// The input is not in the encoding it should be (a key, certificate or archive that does
        /// not parse, or has bytes after its end).
        case malformedInput
        /// A password or passphrase did not open the input.
        case wrongPassword
        /// A parameter is outside what the operation takes (a key or nonce length, an input that
        /// does not fit the key).
        case badParameter
        /// An OpenSSL call failed for a reason of its own; `codes` holds OpenSSL's error queue.
        case internalFailure
    }

    /// What kind of failure it is.
    package let kind: Kind
    /// The call or rule that failed, naming no secret.
    package let reason: String
    /// OpenSSL's error codes for an internal failure, oldest first (empty when OpenSSL queued none).
    package let codes: [UInt]

    /// An error of `kind` with `reason` and OpenSSL's `codes`.
    package init(_ kind: Kind, _ reason: String, codes: [UInt] = []) {
        self.kind = kind
        self.reason = reason
        self.codes = codes
    }

    /// The reason, with OpenSSL's codes in hexadecimal when there are any.
    package var description: String {
        codes.isEmpty ? reason : "\(reason) (OpenSSL error \(codes.map { String($0, radix: 16) }.joined(separator: ",")))"
    }
}
