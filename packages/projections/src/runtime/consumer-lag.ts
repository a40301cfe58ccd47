export { consumerLag } from '@holdfast/kafka';
