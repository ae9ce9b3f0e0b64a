// The floor for whole-process CLI timings: a Swift program that imports Foundation and prints.
import Foundation

print("hello")
