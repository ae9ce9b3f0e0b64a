/// What `Keychain.backup(to:password:)` wrote.
public struct BackupSummary: Equatable, Sendable {
    /// Items written to the backup.
    public var itemCount: Int
    /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` items, which a backup never holds.
    public var passcodeOnlyItemsLeftOut: Int

    /// A summary with these counts.
    public init(itemCount: Int, passcodeOnlyItemsLeftOut: Int) {
        self.itemCount = itemCount
        self.passcodeOnlyItemsLeftOut = passcodeOnlyItemsLeftOut
    }
}

/// What `Keychain.restore(from:password:)` did.
public struct RestoreSummary: Equatable, Sendable {
    /// Items restored.
    public var restoredCount: Int
    /// `…ThisDeviceOnly` items of the backup that were not restored because it was made on another device.
    public var thisDeviceOnlyItemsLeftOut: Int
    /// Whether the backup was made on this device.
    public var isSameDevice: Bool

    /// A summary with these values.
    public init(restoredCount: Int, thisDeviceOnlyItemsLeftOut: Int, isSameDevice: Bool) {
        self.restoredCount = restoredCount
        self.thisDeviceOnlyItemsLeftOut = thisDeviceOnlyItemsLeftOut
        self.isSameDevice = isSameDevice
    }
}
