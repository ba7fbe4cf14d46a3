// Typed repositories: the only place SQL for the engine's tables is written. Reads run against the
// committed in-memory database; writes only append statements to a Batch (inside store.transaction),
// which the Store journals and applies. Written statements must be deterministic given the database
// state (ids and times come from JS, no random()/CURRENT_TIMESTAMP): every process applies every
// batch exactly once, in sequence order, and must end with the same rows.
// One repository per file under repos/; this module composes them and re-exports their types.
import type { Batch, SqlReader } from './repos/repoBase';
import { ItemsRepo } from './repos/itemsRepo';
import { RawBlobsRepo } from './repos/rawBlobsRepo';
import { ItemSourcesRepo } from './repos/itemSourcesRepo';
import { LinksRepo } from './repos/linksRepo';
import { ConversationsRepo } from './repos/conversationsRepo';
import { RawBuffersRepo } from './repos/rawBuffersRepo';
import { LedgerRepo } from './repos/ledgerRepo';
import { AuditRepo } from './repos/auditRepo';
import { PurgeLogRepo } from './repos/purgeLogRepo';
import { QuarantinesRepo } from './repos/quarantinesRepo';
import { CountersRepo } from './repos/countersRepo';
import { VectorStateRepo } from './repos/vectorStateRepo';
import { MetaRepo } from './repos/metaRepo';
export * from './repos/repoBase';
export * from './repos/itemsRepo';
export * from './repos/rawBlobsRepo';
export * from './repos/itemSourcesRepo';
export * from './repos/linksRepo';
export * from './repos/conversationsRepo';
export * from './repos/rawBuffersRepo';
export * from './repos/ledgerRepo';
export * from './repos/auditRepo';
export * from './repos/purgeLogRepo';
export * from './repos/quarantinesRepo';
export * from './repos/countersRepo';
export * from './repos/vectorStateRepo';
export * from './repos/metaRepo';

/** The repository set, built once for reads (no batch) and once per transaction (with its batch). */
export class Repositories {
  readonly items: ItemsRepo;
  readonly rawBlobs: RawBlobsRepo;
  readonly itemSources: ItemSourcesRepo;
  readonly links: LinksRepo;
  readonly conversations: ConversationsRepo;
  readonly rawBuffers: RawBuffersRepo;
  readonly ledger: LedgerRepo;
  readonly audit: AuditRepo;
  readonly purgeLog: PurgeLogRepo;
  readonly quarantines: QuarantinesRepo;
  readonly counters: CountersRepo;
  readonly vectorState: VectorStateRepo;
  readonly meta: MetaRepo;
  constructor(q: SqlReader, batch?: Batch) {
    this.items = new ItemsRepo(q, batch);
    this.rawBlobs = new RawBlobsRepo(q, batch);
    this.itemSources = new ItemSourcesRepo(q, batch);
    this.links = new LinksRepo(q, batch);
    this.conversations = new ConversationsRepo(q, batch);
    this.rawBuffers = new RawBuffersRepo(q, batch);
    this.ledger = new LedgerRepo(q, batch);
    this.audit = new AuditRepo(q, batch);
    this.purgeLog = new PurgeLogRepo(q, batch);
    this.quarantines = new QuarantinesRepo(q, batch);
    this.counters = new CountersRepo(q, batch);
    this.vectorState = new VectorStateRepo(q, batch);
    this.meta = new MetaRepo(q, batch);
  }
}
