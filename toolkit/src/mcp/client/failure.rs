//! Why a remote tool call failed, before it is told to the caller.

use rmcp::service::ServiceError;

/// Why a call failed: the request, or this client, which could not answer what the server
/// asked for it.
#[derive(Debug)]
pub(super) enum CallFailure {
    Request(ServiceError),
    Unanswered(String),
}

impl From<ServiceError> for CallFailure {
    fn from(err: ServiceError) -> Self {
        CallFailure::Request(err)
    }
}
