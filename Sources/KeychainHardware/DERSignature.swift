import Foundation

/// X9.62 ECDSA signatures in DER: `SEQUENCE { INTEGER r, INTEGER s }`, as Apple's
/// `SecKeyCreateSignature` returns them for the X962 algorithms.
enum DERSignature {
    /// The DER of the signature whose big-endian integers are `r` and `s`.
    static func encode(r: ArraySlice<UInt8>, s: ArraySlice<UInt8>) -> Data {
        let body = integer(r) + integer(s)
        return Data([0x30]) + length(body.count) + body
    }

    /// An unsigned big-endian integer as a DER INTEGER: leading zeros dropped, one zero byte
    /// added when the top bit is set.
    private static func integer(_ value: ArraySlice<UInt8>) -> Data {
        var bytes = Array(value.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return Data([0x02]) + length(bytes.count) + Data(bytes)
    }

    private static func length(_ count: Int) -> Data {
        count < 0x80 ? Data([UInt8(count)]) : Data([0x81, UInt8(count)])
    }
}
