"""Organizations (tenants). Provisioning fills in the rest of their lifecycle."""

from peewee import CharField, ForeignKeyField, IntegerField, TextField

from models.base import BaseModel, JSONField, UTCDateTimeField, new_id, utcnow

ORG_STATUSES = ("provisioning", "active", "suspended", "failed")


class Organization(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("org"))
    name = CharField(max_length=200)
    slug = CharField(max_length=63, unique=True)
    status = CharField(max_length=20, default="active")
    plan = CharField(max_length=40, default="standard")
    timezone = CharField(max_length=64, default="UTC")
    settings = JSONField(default=dict)
    quotas = JSONField(default=dict)
    # A change to the payment methods holds this lease while it talks to the card processor
    # (`services.billing.methods`): one change per organization at a time, no lock held.
    billing_busy_until = UTCDateTimeField(null=True)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)


PROVISIONING_STATUSES = ("queued", "running", "succeeded", "failed")
STEP_STATUSES = ("pending", "running", "done", "skipped", "failed", "compensated")


class OrganizationMember(BaseModel):
    """A person of the organization (provisioning creates its first admin)."""

    id = CharField(primary_key=True, default=lambda: new_id("mem"))
    organization = ForeignKeyField(Organization, backref="members", on_delete="CASCADE")
    email = CharField(max_length=254)
    role = CharField(max_length=20, default="admin")
    created_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("organization", "email"), True),)


class ProvisioningJob(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("prv"))
    request = JSONField()
    status = CharField(max_length=20, default="queued")
    current_step = CharField(max_length=40, null=True)
    organization = ForeignKeyField(Organization, null=True, backref="provisioning_jobs",
                                   on_delete="SET NULL")
    result = JSONField(null=True)
    # The first admin token, kept only until the first read of the succeeded job.
    admin_token = TextField(null=True)
    error = TextField(null=True)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)
    finished_at = UTCDateTimeField(null=True)


class ProvisioningStep(BaseModel):
    job = ForeignKeyField(ProvisioningJob, backref="steps", on_delete="CASCADE")
    index = IntegerField()
    name = CharField(max_length=40)
    status = CharField(max_length=20, default="pending")
    attempts = IntegerField(default=0)
    started_at = UTCDateTimeField(null=True)
    finished_at = UTCDateTimeField(null=True)
    error = TextField(null=True)
    # What the step made (ids), so that compensation knows what to undo.
    output = JSONField(default=dict)

    class Meta:
        indexes = ((("job", "index"), True),)


class SlugReservation(BaseModel):
    """A slug held by a provisioning job from the request on, so two jobs never race for it."""

    slug = CharField(max_length=63, primary_key=True)
    job = ForeignKeyField(ProvisioningJob, backref="reservations", on_delete="CASCADE")
    created_at = UTCDateTimeField(default=utcnow)
