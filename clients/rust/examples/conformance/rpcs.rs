//! The sweep's dispatch table: every RPC of proto/kxm/v1/*_service.proto, by its full name
//! (`kxm.v1.AgentService/ListAgents`), with the generated client method that makes it and the prost
//! type its request decodes into.
//!
//! Prost keeps no descriptors at run time, so this table is the only place the program learns the
//! contract's methods: a new RPC needs its line here (a method missing from it is recorded as
//! `UNIMPLEMENTED_IN_CLIENT`). Compare with `grep -h '^  rpc' proto/kxm/v1/*_service.proto`.

use kxm_client::v1;
use kxm_client::v1::admin_service_client::AdminServiceClient;
use kxm_client::v1::agent_service_client::AgentServiceClient;
use kxm_client::v1::context_service_client::ContextServiceClient;
use kxm_client::v1::lease_service_client::LeaseServiceClient;
use kxm_client::v1::message_service_client::MessageServiceClient;
use kxm_client::v1::ops_service_client::OpsServiceClient;
use kxm_client::v1::runtime_service_client::RuntimeServiceClient;
use kxm_client::v1::workflow_service_client::WorkflowServiceClient;
use tonic::transport::Channel;

use crate::sweep::{Call, Outcome, bidi_stream, server_stream, unary};

/// `Service => Client { kind Method => client_method(Request); ... }`: one line per RPC. `kind` is
/// the helper of crate::sweep that makes a call of that shape.
macro_rules! rpcs {
    ($($service:ident => $client:ident { $($kind:ident $method:ident => $call:ident($request:ident);)* })*) => {
        /// Makes `call` through the generated client of its method; `None` when no RPC has its name.
        pub async fn dispatch(channel: &Channel, call: &Call) -> Option<Outcome> {
            let outcome = match call.method.as_str() {
                $($(concat!("kxm.v1.", stringify!($service), "/", stringify!($method)) => {
                    let mut client = $client::new(channel.clone());
                    $kind::<v1::$request, _, _>(call, move |r| async move { client.$call(r).await }).await
                })*)*
                _ => return None,
            };
            Some(outcome)
        }
    };
}

rpcs! {
    AdminService => AdminServiceClient {
        unary CreateProject => create_project(CreateProjectRequest);
        unary ListProjects => list_projects(ListProjectsRequest);
        unary RotateProjectToken => rotate_project_token(RotateProjectTokenRequest);
        unary CreateOperator => create_operator(CreateOperatorRequest);
        unary ListOperators => list_operators(ListOperatorsRequest);
        unary RevokeOperator => revoke_operator(RevokeOperatorRequest);
        unary ListAuditRecords => list_audit_records(ListAuditRecordsRequest);
        unary MintSessionToken => mint_session_token(MintSessionTokenRequest);
        unary RevokeSessionToken => revoke_session_token(RevokeSessionTokenRequest);
        unary ListSessionTokens => list_session_tokens(ListSessionTokensRequest);
    }
    AgentService => AgentServiceClient {
        unary RegisterAgent => register_agent(RegisterAgentRequest);
        unary Heartbeat => heartbeat(HeartbeatRequest);
        unary UnregisterAgent => unregister_agent(UnregisterAgentRequest);
        unary ListAgents => list_agents(ListAgentsRequest);
        unary GetCallerIdentity => get_caller_identity(GetCallerIdentityRequest);
        bidi_stream OpenChannel => open_channel(OpenChannelRequest);
    }
    ContextService => ContextServiceClient {
        unary PutItems => put_items(PutItemsRequest);
        unary GetContextPacket => get_context_packet(GetContextPacketRequest);
        unary Recall => recall(RecallRequest);
        unary GetState => get_state(GetStateRequest);
        unary ListStateSet => list_state_set(ListStateSetRequest);
        unary ProposeState => propose_state(ProposeStateRequest);
        unary PromoteState => promote_state(PromoteStateRequest);
        unary RejectState => reject_state(RejectStateRequest);
        unary ListEpisodes => list_episodes(ListEpisodesRequest);
        unary ExplainItem => explain_item(ExplainItemRequest);
        unary DeleteItems => delete_items(DeleteItemsRequest);
        unary CreateSkill => create_skill(CreateSkillRequest);
        unary EvaluateSkill => evaluate_skill(EvaluateSkillRequest);
        unary PromoteSkill => promote_skill(PromoteSkillRequest);
        unary RejectSkill => reject_skill(RejectSkillRequest);
        unary GetSkill => get_skill(GetSkillRequest);
        unary ListSkills => list_skills(ListSkillsRequest);
        unary SyncMemory => sync_memory(SyncMemoryRequest);
        unary ListMemory => list_memory(ListMemoryRequest);
        unary ProposeMemory => propose_memory(ProposeMemoryRequest);
        unary PromoteMemory => promote_memory(PromoteMemoryRequest);
        unary RejectMemory => reject_memory(RejectMemoryRequest);
    }
    LeaseService => LeaseServiceClient {
        unary AcquireLease => acquire_lease(AcquireLeaseRequest);
        unary RenewLease => renew_lease(RenewLeaseRequest);
        unary ReleaseLease => release_lease(ReleaseLeaseRequest);
        unary GetLease => get_lease(GetLeaseRequest);
        unary ListLeases => list_leases(ListLeasesRequest);
        unary CheckFence => check_fence(CheckFenceRequest);
    }
    MessageService => MessageServiceClient {
        unary SendMessage => send_message(SendMessageRequest);
        unary GetMessage => get_message(GetMessageRequest);
        unary CancelMessage => cancel_message(CancelMessageRequest);
        unary ReplyToMessage => reply_to_message(ReplyToMessageRequest);
        unary AckMessages => ack_messages(AckMessagesRequest);
        unary ListInbox => list_inbox(ListInboxRequest);
        unary WaitMessage => wait_message(WaitMessageRequest);
        unary FanoutMessages => fanout_messages(FanoutMessagesRequest);
        server_stream Subscribe => subscribe(SubscribeRequest);
    }
    OpsService => OpsServiceClient {
        unary GetOpsSnapshot => get_ops_snapshot(GetOpsSnapshotRequest);
        server_stream WatchOps => watch_ops(WatchOpsRequest);
    }
    RuntimeService => RuntimeServiceClient {
        unary RegisterRuntime => register_runtime(RegisterRuntimeRequest);
        unary RuntimeHeartbeat => runtime_heartbeat(RuntimeHeartbeatRequest);
        unary ListRuntimes => list_runtimes(ListRuntimesRequest);
        unary PushSyncEvents => push_sync_events(PushSyncEventsRequest);
        unary ListRunEvents => list_run_events(ListRunEventsRequest);
        unary ReassignSyncProject => reassign_sync_project(ReassignSyncProjectRequest);
    }
    WorkflowService => WorkflowServiceClient {
        unary RegisterWorkflowDefinition => register_workflow_definition(RegisterWorkflowDefinitionRequest);
        unary GetWorkflowDefinition => get_workflow_definition(GetWorkflowDefinitionRequest);
        unary ListWorkflowDefinitions => list_workflow_definitions(ListWorkflowDefinitionsRequest);
        unary RegisterGateRegistry => register_gate_registry(RegisterGateRegistryRequest);
        unary GetGateRegistry => get_gate_registry(GetGateRegistryRequest);
        unary StartWorkflowRun => start_workflow_run(StartWorkflowRunRequest);
        unary GetWorkflowRun => get_workflow_run(GetWorkflowRunRequest);
        unary ListWorkflowRuns => list_workflow_runs(ListWorkflowRunsRequest);
        unary CancelWorkflowRun => cancel_workflow_run(CancelWorkflowRunRequest);
        unary RerunWorkflowRun => rerun_workflow_run(RerunWorkflowRunRequest);
        unary Checkpoint => checkpoint(CheckpointRequest);
        unary Wait => wait(WaitRequest);
        unary SignalWorkflowRun => signal_workflow_run(SignalWorkflowRunRequest);
        unary ApproveDegradation => approve_degradation(ApproveDegradationRequest);
        unary EscalateStage => escalate_stage(EscalateStageRequest);
        unary ResolveEscalation => resolve_escalation(ResolveEscalationRequest);
        unary RecordJournal => record_journal(RecordJournalRequest);
        unary ListJournal => list_journal(ListJournalRequest);
        unary PromoteJournalEntry => promote_journal_entry(PromoteJournalEntryRequest);
        unary GetImprovementReport => get_improvement_report(GetImprovementReportRequest);
        unary ExportRetrospective => export_retrospective(ExportRetrospectiveRequest);
        unary VerifyJournal => verify_journal(VerifyJournalRequest);
        unary CompleteAssignment => complete_assignment(CompleteAssignmentRequest);
        unary NextAssignment => next_assignment(NextAssignmentRequest);
        unary ApproveStep => approve_step(ApproveStepRequest);
        unary RecoverStepRun => recover_step_run(RecoverStepRunRequest);
        unary ListWorkflowRunEvents => list_workflow_run_events(ListWorkflowRunEventsRequest);
        unary AuditGateEvidence => audit_gate_evidence(AuditGateEvidenceRequest);
    }
}
