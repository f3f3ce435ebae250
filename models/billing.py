"""Payment methods: references to the processor's objects, never card numbers."""

from peewee import BooleanField, CharField, ForeignKeyField, IntegerField

from models.base import BaseModel, JSONField, UTCDateTimeField, new_id, utcnow
from models.organizations import Organization


class PaymentMethod(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("pmt"))
    organization = ForeignKeyField(Organization, backref="payment_methods", on_delete="CASCADE")
    processor = CharField(max_length=20)
    processor_id = CharField(max_length=255)
    type = CharField(max_length=40)
    brand = CharField(max_length=40, null=True)
    last4 = CharField(max_length=4, null=True)
    exp_month = IntegerField(null=True)
    exp_year = IntegerField(null=True)
    is_default = BooleanField(default=False)
    billing_details = JSONField(default=dict)
    created_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("organization", "processor_id"), True),)
