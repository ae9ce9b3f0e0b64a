// The libFuzzer entry point of `scripts/fuzz`: compiled with the fuzz targets in
// Tests/ReliabilityTests/Fuzzing, never by `swift build`.
import Foundation

/// The target `KEYCHAIN_FUZZ_TARGET` names.
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["KEYCHAIN_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        fatalError("KEYCHAIN_FUZZ_TARGET must be one of \(FuzzTarget.allCases.map(\.rawValue))")
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    do {
        try selectedTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    } catch {
        // A property failed: crash, so that libFuzzer saves the input.
        fatalError("\(selectedTarget.rawValue): \(error)")
    }
    return 0
}
