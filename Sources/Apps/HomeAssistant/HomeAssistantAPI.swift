import CompanionCore
import CompanionHTTP
import Foundation

/// Home Assistant's HTTP API as values (§2.2–§2.5, §2.8): one function per route, nothing sent here.
///
/// Replies whose shape the catalog reads leniently come back as `JSONValue` and are read by the core's own
/// readers (`ServerConfig.read`, `EntityState.list`), which keep what they can and say what they could not.
public enum HomeAssistantAPI {
    /// `GET /api/config` (Bearer): the server's configuration.
    public static func config() -> Request<JSONValue> { .get("/api/config") }

    /// `GET /api/states` (Bearer): every state the user may read.
    public static func states() -> Request<JSONValue> { .get("/api/states") }

    /// `GET /api/states/<entity_id>` (Bearer): one state; 404 `{"message":"Entity not found."}` when unknown.
    public static func state(_ entityID: String) -> Request<JSONValue> { .get("/api/states/\(entityID)") }
}
