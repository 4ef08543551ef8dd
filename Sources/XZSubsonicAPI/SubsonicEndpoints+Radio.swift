import XZCatalogue

/// Internet radio stations, changed by admins; MPD clients find them as the stored playlist
/// "Internet radio", rewritten on every change.
extension SubsonicEndpoints {
    static let radio: [SubsonicEndpoint] = [
        SubsonicEndpoint("getInternetRadioStations") { call in
            let stations = try RadioStationCalls.stations(call).all().map(SubsonicInternetRadioStation.init)
            return .document(SubsonicDocument("internetRadioStations", SubsonicInternetRadioStations(internetRadioStation: stations)))
        },
        SubsonicEndpoint("createInternetRadioStation", .admin) { call in
            let station = RadioStation(name: try call.required("name"), streamURL: try call.required("streamUrl"),
                                       homepageURL: try call.text("homepageUrl") ?? "")
            try RadioStationCalls.change(call) { try $0.add(station) }
            return .empty
        },
        SubsonicEndpoint("updateInternetRadioStation", .admin) { call in
            guard case .radioStation(let id) = try call.id("id") else { throw SubsonicError.notFound("'id' names no radio station") }
            let station = RadioStation(id: id, name: try call.required("name"), streamURL: try call.required("streamUrl"),
                                       homepageURL: try call.text("homepageUrl") ?? "")
            try RadioStationCalls.change(call) { try $0.update(station) }
            return .empty
        },
        SubsonicEndpoint("deleteInternetRadioStation", .admin) { call in
            guard case .radioStation(let id) = try call.id("id") else { throw SubsonicError.notFound("'id' names no radio station") }
            try RadioStationCalls.change(call) { try $0.remove(id: id) }
            return .empty
        },
    ]
}

enum RadioStationCalls {
    static func stations(_ call: SubsonicCall) -> RadioStations {
        RadioStations(database: call.library.database, playlists: call.library.host.playlists)
    }

    /// A change, its refusals as the spec's errors; MPD clients hear the stations' playlist change.
    static func change(_ call: SubsonicCall, _ body: (RadioStations) throws -> Void) throws {
        do {
            try body(stations(call))
        } catch let error as RadioStationError {
            switch error.kind {
            case .noSuchStation: throw SubsonicError.notFound(error.message)
            case .badStation, .tooMany: throw SubsonicError.generic(error.message)
            }
        }
        call.library.host.wrote(.storedPlaylists)
    }
}

package struct SubsonicInternetRadioStation: Encodable, Sendable, Equatable {
    package var id: String
    package var name: String
    package var streamUrl: String
    package var homePageUrl: String?

    init(_ station: RadioStation) {
        id = SubsonicID.radioStation(station.id).text
        name = station.name
        streamUrl = station.streamURL
        homePageUrl = station.homepageURL.isEmpty ? nil : station.homepageURL
    }
}

package struct SubsonicInternetRadioStations: Encodable, Sendable, Equatable {
    package var internetRadioStation: [SubsonicInternetRadioStation]
}
