import Foundation
import XZCommands

exit(await Main.run(Array(CommandLine.arguments.dropFirst())))
