import Foundation
import XZCommands

exit(Main.run(Array(CommandLine.arguments.dropFirst())))
