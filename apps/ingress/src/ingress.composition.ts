/**
 * The ingress's object graph, built with `new` in one typed function from what main.ts (or a
 * test) opened. One style for both apps (dispatcher.composition.ts is the other): a compose
 * function, not Nest providers by class type, because the constructors take ports (the store, the
 * clock, the limiter), callbacks and settings, which Nest can only inject through tokens,
 * positional inject arrays and casts; here the compiler checks every argument, and decorators
 * (metrics, tracing) are applied where the object is made. Nest gets the finished objects once
 * (ingressProviders), under the classes the controllers and tests look them up by. Called per
 * app (createIngressApp): every app instance, and every test app in one process, owns its own.
 */
import { Logger, type Provider } from '@nestjs/common';
import {
  AccountsService,
  ApiKeysService,
  AuditQueries,
  BatchedActivityRecorder,
  ConfigurationFeeder,
  ConfigurationState,
  RoutinesService,
  RunQueries,
  TriggerWebhookUseCase,
  UseCaseContext,
  WebhookActivityQueries,
  WebhookAdminService,
  WebhookHoldService,
  WebhookRetentionService,
  WebhookRulesService,
  ErasureService,
  RedispatchParkedUseCase,
  DispatchDeliveryUseCase,
  ParkDispatchUseCase,
  OperatorAuthenticator,
  cryptoRandom,
  systemClock,
  type AccessTokenVerifier,
  type SecretSealer,
  type SignatureVerifier,
  type RateLimiter,
} from '@wts/application';
import type { AppConfig } from '@wts/config';
import type { CheckpointStore, EventStore } from '@wts/event-store';
import { KafkaRunsWindowSource, nestMessagingLogger, type KafkaCopiesExpireBy } from '@wts/messaging';
import { RecheckPatternSafety, maxEventBytes, provideValue } from '@wts/platform';
import type { ReadModelStore } from '@wts/read-models';
import { digestSecret } from '@wts/domain';
import { OperatorAdmission } from './access/operator.admission';
import { ConfigurationFeederLifecycle } from './configuration-feeder.lifecycle';
import { RateLimiterLifecycle } from './rate-limiter.lifecycle';
import { HoldExpiryLifecycle } from './hold-expiry.lifecycle';
import { ReadModelLifecycle } from './read-model.lifecycle';
import { meteredTrigger } from './webhook/metered-trigger.instrumentation';
import { tracedTrigger } from './webhook/traced-trigger.instrumentation';
import type { TriggerWebhook } from './webhook/webhook-trigger.route';
import { SignInSettingsHolder, type SignInSettings } from './ui/sign-in.setting';

export interface IngressDependencies {
  readonly config: AppConfig;
  /** The bootstrap credential (role admin); undefined when it is off (ADMIN_TOKEN=off). */
  readonly adminToken: string | undefined;
  /** OIDC access tokens (OIDC_ISSUER); undefined: people cannot sign in, only keys and the bootstrap token open the admin API. */
  readonly accessTokens?: AccessTokenVerifier;
  /** How the Config page signs people in (the public client id and the issuer); null when OIDC is not configured. */
  readonly signIn?: SignInSettings['oidc'];
  readonly store: EventStore;
  /** Listings (deliveries, runs, parked, rejected attempts): SQLite beside the store, or PostgreSQL. */
  readonly readModels: ReadModelStore;
  /** With REDIS_URL, `ping` is its readiness check. */
  readonly rateLimiter: RateLimiter & { readonly ping?: () => Promise<void> };
  /** Needed when KAFKA_BROKERS is set: the relay's durable checkpoint. */
  readonly checkpoints?: CheckpointStore;
  /** Health and metrics are served by a listener of their own (OPS_PORT): this app leaves them out. */
  readonly operationsElsewhere?: boolean;
  /** Seals signing secrets (SECRETS_ENCRYPTION_KEY); undefined: signed schemes cannot be enabled or verified. */
  readonly secrets?: SecretSealer;
  /** Checks signed senders' signatures with the providers' libraries; undefined: a signed request is the one 404. */
  readonly signatures?: SignatureVerifier;
  /** How long routines.runs.v1 keeps payloads; made from KAFKA_BROKERS and PAYLOAD_RETENTION_SECONDS unless given (tests name their topic). */
  readonly runsWindow?: KafkaRunsWindowSource;
}

export interface IngressGraph {
  readonly state: ConfigurationState;
  readonly feeder: ConfigurationFeeder;
  readonly accounts: AccountsService;
  readonly routines: RoutinesService;
  readonly webhookAdmin: WebhookAdminService;
  readonly holds: WebhookHoldService;
  readonly retention: WebhookRetentionService;
  readonly rules: WebhookRulesService;
  readonly redispatch: RedispatchParkedUseCase;
  readonly runQueries: RunQueries;
  readonly webhookActivity: WebhookActivityQueries;
  readonly apiKeys: ApiKeysService;
  readonly audit: AuditQueries;
  /** Erasure on request: recorded here, run by the dispatcher's runner. */
  readonly erasures: ErasureService;
  /** The admin API's door: credential, role, and the audit of refusals (the onRequest hook). */
  readonly admission: OperatorAdmission;
  readonly signIn: SignInSettingsHolder;
  /** The public endpoint's use case, counted and traced (the route is registered on Fastify directly). */
  readonly trigger: TriggerWebhook;
  /** With Kafka, how long routines.runs.v1 keeps copies of payloads (learnt at start); null without. */
  readonly runsWindow: KafkaRunsWindowSource;
  /** By when the last Kafka copy of a run written then is gone (an erasure's kafka_copies_expire_by); null without Kafka. */
  readonly kafkaCopiesExpireBy: KafkaCopiesExpireBy;
  readonly lifecycles: {
    readonly feeder: ConfigurationFeederLifecycle;
    readonly readModels: ReadModelLifecycle;
    readonly rateLimiter: RateLimiterLifecycle;
    readonly holdExpiry: HoldExpiryLifecycle;
  };
}

export function composeIngress(deps: IngressDependencies): IngressGraph {
  const { config, store, readModels, rateLimiter } = deps;
  const state = new ConfigurationState({
    secrets: deps.secrets,
    onSecretUnavailable: (webhookId, error) =>
      new Logger('Configuration').error(
        { webhookId, err: error },
        'a signing secret cannot be opened: its webhook answers 404 until SECRETS_ENCRYPTION_KEY holds its key',
      ),
  });
  const feeder = new ConfigurationFeeder(store, state, (error) =>
    new Logger('Configuration').error({ err: error }, 'configuration subscription failed; resubscribing'),
  );
  const recorder = new BatchedActivityRecorder(readModels, (error, dropped) =>
    new Logger('WebhookActivity').error(
      { err: error, dropped },
      'rejected attempts, replays and denied admin attempts could not be written; kept for a retry',
    ),
  );
  const authenticator = new OperatorAuthenticator(state, feeder, systemClock, {
    bootstrapTokenDigest: deps.adminToken === undefined ? undefined : digestSecret(deps.adminToken),
    accessTokens: deps.accessTokens,
  });
  const context = new UseCaseContext(store, state, systemClock, cryptoRandom, feeder);
  const limits = { ...config.limits, maxEventBytes: maxEventBytes(config, store) };
  const trigger = new TriggerWebhookUseCase({ context, rateLimiter, activity: recorder, limits, signatures: deps.signatures });
  const payloadRetentionSeconds = config.limits.payloadRetentionSeconds;
  const runsWindow =
    deps.runsWindow ??
    new KafkaRunsWindowSource(
      config.kafka && { connection: config.kafka, payloadRetentionSeconds, logger: nestMessagingLogger('KafkaRunsWindow') },
    );
  // A webhook retention shorter than routines.runs.v1 keeps copies of payloads is refused (400).
  const viewSettings = {
    publicBaseUrl: config.http.publicBaseUrl,
    defaultPayloadRetentionSeconds: payloadRetentionSeconds,
    kafkaRunsWindow: () => runsWindow.current(),
  };
  const webhookAdmin = new WebhookAdminService(context, viewSettings, deps.secrets, (routineId, range, cap) =>
    readModels.waitingDeliveries(routineId, range, cap),
  );
  const holds = new WebhookHoldService(context, webhookAdmin);
  // Re-dispatch from the page runs the dispatcher's use case here, as `replay --to dispatcher` does
  // in the command line: the run stream's "must not exist" guard keeps each run single.
  const redispatch = new RedispatchParkedUseCase(
    store,
    new DispatchDeliveryUseCase(store, systemClock, new ParkDispatchUseCase(store, systemClock)),
    systemClock,
    cryptoRandom,
  );
  return {
    state,
    feeder,
    accounts: new AccountsService(context),
    routines: new RoutinesService(context),
    webhookAdmin,
    holds,
    retention: new WebhookRetentionService(webhookAdmin, viewSettings),
    rules: new WebhookRulesService(context, webhookAdmin, new RecheckPatternSafety()),
    redispatch,
    runQueries: new RunQueries(store, state, feeder, readModels),
    webhookActivity: new WebhookActivityQueries(state, feeder, readModels, recorder, systemClock),
    apiKeys: new ApiKeysService(context),
    audit: new AuditQueries(readModels, recorder),
    erasures: new ErasureService({
      store,
      clock: systemClock,
      random: cryptoRandom,
      kafkaCopiesExpireBy: config.kafka ? runsWindow.copiesExpireBy : undefined,
    }),
    admission: new OperatorAdmission(authenticator, recorder, systemClock, cryptoRandom),
    signIn: new SignInSettingsHolder({ oidc: deps.signIn ?? null, bootstrap_token: deps.adminToken !== undefined }),
    trigger: tracedTrigger(meteredTrigger(trigger)),
    runsWindow,
    kafkaCopiesExpireBy: runsWindow.copiesExpireBy,
    lifecycles: {
      feeder: new ConfigurationFeederLifecycle(feeder),
      readModels: new ReadModelLifecycle(recorder, readModels),
      rateLimiter: new RateLimiterLifecycle(rateLimiter),
      holdExpiry: new HoldExpiryLifecycle(holds),
    },
  };
}

/** The graph, registered with Nest: what the controllers inject, and the lifecycle hooks. */
export function ingressProviders(graph: IngressGraph): Provider[] {
  return [
    provideValue(ConfigurationState, graph.state),
    provideValue(ConfigurationFeeder, graph.feeder),
    provideValue(AccountsService, graph.accounts),
    provideValue(RoutinesService, graph.routines),
    provideValue(WebhookAdminService, graph.webhookAdmin),
    provideValue(WebhookHoldService, graph.holds),
    provideValue(WebhookRetentionService, graph.retention),
    provideValue(WebhookRulesService, graph.rules),
    provideValue(RedispatchParkedUseCase, graph.redispatch),
    provideValue(RunQueries, graph.runQueries),
    provideValue(WebhookActivityQueries, graph.webhookActivity),
    provideValue(ApiKeysService, graph.apiKeys),
    provideValue(AuditQueries, graph.audit),
    provideValue(ErasureService, graph.erasures),
    provideValue(SignInSettingsHolder, graph.signIn),
    provideValue(ConfigurationFeederLifecycle, graph.lifecycles.feeder),
    provideValue(ReadModelLifecycle, graph.lifecycles.readModels),
    provideValue(RateLimiterLifecycle, graph.lifecycles.rateLimiter),
    provideValue(HoldExpiryLifecycle, graph.lifecycles.holdExpiry),
    provideValue(KafkaRunsWindowSource, graph.runsWindow),
  ];
}
